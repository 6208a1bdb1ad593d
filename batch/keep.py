"""The `--keep` filter language: which positions of a batch run are written out.

A filter is conditions on the answers, joined with `and`, `or`, `not` and parentheses:

    mate_in 1 = no key and mate_in 2 = one key
    status == checkmate or (status == check and legal_moves <= 2 moves)

Each condition starts with one asked command (it is asked even without `--ask`), then:

- `ok` / `refused`: the engine accepted / refused the command;
- `== TEXT`, `= TEXT`, `!= TEXT`: the whole answer is (is not) TEXT;
- `has TEXT`: TEXT is one of the answer's items;
- `~ REGEX`: the regular expression matches somewhere in the answer;
- `OP COUNT UNIT` with OP one of `= == != < <= > >=`, COUNT a number or `no`, `one` … `ten`,
  UNIT any word (key, keys, move, moves, piece, …): the number of items compares so;
- `< <= > >=` followed by a bare number: the answer read as a number (`perft 2 > 100`).

An answer's items are its lines that start at column 0 when it has several lines (the keys of
`solution`), else its words; a count followed by its lines (`helpmate`) has those lines as its
items, a lone `0` none, and compares as the count (`helpmate 3 < 2`). A command that was
refused or failed satisfies nothing but `refused`. TEXT may be quoted ("...", '...') to hold
spaces or parentheses; unquoted, a word may hold parentheses glued to it, as cell names do:
`mate_in 2 has bb1(III)-a2(II)`.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from batch.jobs import Outcome

Test = Callable[[Outcome], bool]
#: A test that may not know yet: given the commands asked so far (None: all of them), it
#: answers True, False, or None while the answer hangs on a command not asked yet.
Partial = Callable[[Outcome, AbstractSet[str] | None], bool | None]

TOKEN = re.compile(
    r"""\s*(?:
        (?P<quoted>"[^"]*"|'[^']*')
      | (?P<op>==|!=|<=|>=|=|<|>|~)
      | (?P<word>(?:[^\s()=!<>~"']|\([^\s()=!<>~"']*\))+)
      | (?P<paren>[()])
    )""",
    re.VERBOSE,
)
COMPARE: dict[str, Callable[[float, float], bool]] = {
    "=": operator.eq,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
NUMBER_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
KEYWORDS = {"and", "or", "not"}
STATUS_WORDS = {"ok", "refused", "has"}


class FilterError(ValueError):
    """A filter that does not parse; the message says where and why."""


@dataclass(frozen=True, slots=True)
class Token:
    """One token of a filter: its kind (quoted, op, word, paren) and its text."""

    kind: str
    text: str


def tokenize(source: str) -> list[Token]:
    """Cut a filter into tokens, refusing anything the language has no place for."""
    tokens: list[Token] = []
    position = 0
    source = source.rstrip()
    while position < len(source):
        match = TOKEN.match(source, position)
        if match is None or match.end() == position:
            raise FilterError(f"cannot read the filter at {source[position:][:20]!r}")
        kind = match.lastgroup
        assert kind is not None
        text = match.group(kind)
        if kind == "quoted":
            text = text[1:-1]
        tokens.append(Token(kind, text))
        position = match.end()
    return tokens


def items(answer: str) -> list[str]:
    """Split an answer into its items: top-level lines if several, else its words. A count
    followed by its lines (`helpmate`) has those lines as its items, and a lone 0 none."""
    lines = answer.split("\n")
    if len(lines) > 1:
        if lines[0].isdigit():
            lines = lines[1:]
        return [line for line in lines if line.strip() and not line[0].isspace()]
    return [] if answer.strip() == "0" else answer.split()


def count_of(words: list[str]) -> int | None:
    """Read `N UNIT` (N a number or a number word, UNIT one word); None if it is not that."""
    if len(words) != 2:
        return None
    number = words[0].lower()
    if number.isdigit():
        return int(number)
    if number in NUMBER_WORDS:
        return NUMBER_WORDS.index(number)
    return None


def condition(ask: str, operation: str, value: list[Token]) -> Test:
    """Build the test for one condition on the answer to `ask`."""
    words = [token.text for token in value]
    text = " ".join(words)
    if operation == "ok":
        return lambda outcome: ask in outcome.answers
    if operation == "refused":
        return lambda outcome: ask not in outcome.answers
    if not value:
        raise FilterError(f"nothing after {operation!r} in the condition on {ask!r}")
    if operation == "has":
        return lambda outcome: ask in outcome.answers and text in items(outcome.answers[ask])
    if operation == "~":
        try:
            pattern = re.compile(text)
        except re.error as error:
            raise FilterError(f"bad regular expression {text!r}: {error}") from error
        return lambda outcome: ask in outcome.answers and bool(pattern.search(outcome.answers[ask]))
    compare = COMPARE[operation]
    quoted = any(token.kind == "quoted" for token in value)
    count = None if quoted else count_of(words)
    if count is not None:
        wanted = count
        return lambda outcome: (
            ask in outcome.answers and compare(len(items(outcome.answers[ask])), wanted)
        )
    if operation in ("=", "==", "!="):
        equal = operation != "!="
        return lambda outcome: (
            ask in outcome.answers and ((outcome.answers[ask].strip() == text) == equal)
        )
    try:
        bound = float(text)
    except ValueError:
        raise FilterError(
            f"{operation} needs a number or a count such as '2 moves', not {text!r}"
        ) from None
    return lambda outcome: ask in outcome.answers and compare(_number(outcome.answers[ask]), bound)


def _number(answer: str) -> float:
    """Read an answer (its first line: a helpmate's count) as a number; one that is not
    compares as not-a-number (always false)."""
    try:
        return float(answer.split("\n")[0].strip())
    except ValueError:
        return float("nan")


@dataclass(slots=True)
class Parser:
    """A recursive-descent parser over the tokens of one filter."""

    tokens: list[Token]
    position: int = 0
    #: The commands named by the conditions parsed so far, in order.
    asks: list[str] = field(default_factory=list)

    def peek(self) -> Token | None:
        """Return the next token without taking it."""
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> Token:
        """Take the next token."""
        token = self.peek()
        if token is None:
            raise FilterError("the filter ends too early")
        self.position += 1
        return token

    def keyword(self, word: str) -> bool:
        """Take the next token if it is the keyword `word`."""
        token = self.peek()
        if token is not None and token.kind == "word" and token.text == word:
            self.position += 1
            return True
        return False

    def either(self) -> Partial:
        """Parse `a or b or ...`: true if one is, unknown if none is but one is unknown."""
        tests = [self.both()]
        while self.keyword("or"):
            tests.append(self.both())
        if len(tests) == 1:
            return tests[0]

        def test(outcome: Outcome, asked: AbstractSet[str] | None) -> bool | None:
            values = [each(outcome, asked) for each in tests]
            return True if True in values else None if None in values else False

        return test

    def both(self) -> Partial:
        """Parse `a and b and ...`: false if one is, unknown if none is but one is unknown."""
        tests = [self.negation()]
        while self.keyword("and"):
            tests.append(self.negation())
        if len(tests) == 1:
            return tests[0]

        def test(outcome: Outcome, asked: AbstractSet[str] | None) -> bool | None:
            values = [each(outcome, asked) for each in tests]
            return False if False in values else None if None in values else True

        return test

    def negation(self) -> Partial:
        """Parse `not a`, `( ... )` or a condition."""
        if self.keyword("not"):
            inner = self.negation()

            def test(outcome: Outcome, asked: AbstractSet[str] | None) -> bool | None:
                value = inner(outcome, asked)
                return None if value is None else not value

            return test
        token = self.peek()
        if token is not None and token.kind == "paren" and token.text == "(":
            self.take()
            inner = self.either()
            closing = self.take()
            if closing.kind != "paren" or closing.text != ")":
                raise FilterError(f"expected ')' but found {closing.text!r}")
            return inner
        return self.condition()

    def condition(self) -> Partial:
        """Parse `COMMAND OPERATION VALUE`, the command's words coming first."""
        ask_words: list[str] = []
        operation: str | None = None
        while (token := self.peek()) is not None:
            if token.kind == "op":
                if not ask_words:
                    break
                operation = token.text
                self.take()
                break
            if token.kind == "word" and token.text in STATUS_WORDS and ask_words:
                operation = token.text
                self.take()
                break
            if token.kind != "word" or token.text in KEYWORDS:
                break
            ask_words.append(self.take().text)
        if not ask_words:
            found = self.peek()
            where = "the end" if found is None else repr(found.text)
            raise FilterError(f"expected a command name but found {where}")
        ask = " ".join(ask_words)
        if operation is None:
            raise FilterError(
                f"no comparison after {ask!r} (use ok, refused, has, ~, ==, != or < > <= >=)"
            )
        value: list[Token] = []
        if operation not in ("ok", "refused"):
            while (token := self.peek()) is not None:
                if token.kind == "paren" or (token.kind == "word" and token.text in KEYWORDS):
                    break
                value.append(self.take())
        self.asks.append(ask)
        known = condition(ask, operation, value)

        def test(outcome: Outcome, asked: AbstractSet[str] | None) -> bool | None:
            return None if asked is not None and ask not in asked else known(outcome)

        return test


@dataclass(frozen=True, slots=True)
class Filter:
    """A parsed filter: its text, the commands it needs answered, and the test itself."""

    source: str
    asks: tuple[str, ...]
    test: Partial

    def __call__(self, outcome: Outcome) -> bool:
        """Tell whether the position is kept; a failed one never is, nor one given up early."""
        return outcome.failed is None and not outcome.rejected and self.test(outcome, None) is True

    def rejects(self, outcome: Outcome, asked: AbstractSet[str]) -> bool:
        """Tell whether the answers so far already rule the position out, whatever comes."""
        return self.test(outcome, asked) is False


def parse_filter(source: str) -> Filter:
    """Parse a filter, or raise FilterError naming the problem."""
    tokens = tokenize(source)
    if not tokens:
        raise FilterError("the filter is empty")
    parser = Parser(tokens)
    test = parser.either()
    rest = parser.peek()
    if rest is not None:
        raise FilterError(f"unexpected {rest.text!r} in the filter")
    return Filter(source, tuple(dict.fromkeys(parser.asks)), test)
