# The protocol (docs/protocol.md): ids, framing, and refusals that change nothing.
#
# GTP regression tools count every `?` answer as a failure, so a refusal the engine must give
# is written as an expected failure, with a trailing `*`: should the engine ever accept the
# command, the test shows as an unexpected pass. The text after `#?` names the refusal, for
# people; the tools do not compare a refusal's text (tests/test_notation.py does).

# Ids: the number before a command is its id and the test number; the runner checks that
# each answer carries it back (007 is echoed as 7).
1 protocol_version
#? [2]
007 name
#? [cubemate]
0 known_command set_board
#? [true]
2 known_command   castle
#? [false]
3 version
#? [[0-9]+\.[0-9]+\.[0-9]+.*]

# Framing: an empty result, a result on several lines (no empty line inside), one usage line.
10 clear_board
#? []
11 list_commands
#? [boardsize\ncheckers\ncheckmate\n.*\nset_board\n.*\nversion]
12 help known_command
#? [known_command NAME.*]
13 boardsize 2
#? []
14 get_board
#? [\[##,##\],\[##,##\]]
15 showboard
#? [\s*level II\s+level I\n.*\n1 \. \.\s+1 \. \.\n.*]

# The board notation's slack, and '.' for an empty cell.
20 set_board n = 2, [[.q] [..]] [[..] [K.]]
#? []
21 get_board
#? [\[#q,##\],\[##,K#\]]
22 set_board 2 "#q","##" "##","K#"
#? []
23 get_board
#? [\[#q,##\],\[##,K#\]]
24 checkmate
#? [false]

# Refusals keep the position: every one of these leaves [#q,##],[##,K#] in place.
30 castle
#? [unknown command 'castle'.*]*
31 set_board [K#,##],[##,K#]
#? [invalid board: 2 white kings .*]*
32 set_board [##],[#q,##],[K#]
#? [invalid board: bracket group at column 6 straddles layers 1 and 2 .*]*
33 set_board [#q,##],[],[##,K#]
#? [invalid board: empty brackets at column 9, between layers 1 and 2]*
34 set_board [
#? [invalid board: unbalanced brackets: .* \('#' may have been stripped .*\)]*
35 set_board 3 [#q,##],[##,K#]
#? [invalid board: size 3 does not match .*]*
36 boardsize 1
#? [unacceptable size.*]*
37 help castle
#? [unknown command .*]*
38 get_board
#? [\[#q,##\],\[##,K#\]]
39 checkers
#? [qb2\(II\)]

# A board without a white king has no answer, and says so.
40 clear_board
#? []
41 checkmate
#? [no white king on the board]*
42 status
#? [no white king on the board]*
