# Playing through positions (docs/rules.md, "Both sides"): the side to move, play and undo.
# Expected answers were worked out by tests/reference.py, and tests/test_regress.py checks
# that they still are. Refusals are expected failures (see protocol.tst).

# The side to move is part of the position, and get_board writes it back.
set_board [#q,##],[##,K#] b
1 get_board
#? [\[#q,##\],\[##,K#\] b]
2 set_board [#q,##],[##,K#] white
#? []
3 get_board
#? [\[#q,##\],\[##,K#\]]

# Reference case 2, white to move: the knight's capture is the only move.
set_board [b#b,###,###],[###,###,RNR],[#q#,###,#K#] w
10 legal_moves
#? [Nb1\(II\)xb3\(I\)]
11 play Nb1(II)-c3(I)
#? [illegal move: .*]*
12 play Kb1(I)-b2(I)
#? [illegal move: .*]*
13 play Qb1(II)xb3(I)
#? [illegal move: .*]*
14 play Nb1(II)xb3
#? [illegal move: .*]*
15 undo
#? [cannot undo]*
# The letter may be left out, '-' for 'x' and decimal levels are read too.
16 play b1(2)-b3(1)
#? []
17 get_board
#? [\[b#b,###,###\],\[###,###,R#R\],\[#N#,###,#K#\] b]
18 status
#? [normal]
19 legal_moves
#? [ba3\(III\)-b2\(II\) ba3\(III\)-c1\(I\) bc3\(III\)-a1\(I\) bc3\(III\)-b2\(II\)]
20 play Kc1(I)-c2(I)
#? [illegal move: .*]*
21 play bc3(III)-b2(II)
#? []
22 get_board
#? [\[b##,###,###\],\[###,#b#,R#R\],\[#N#,###,#K#\]]
23 undo
#? []
24 undo
#? []
25 get_board
#? [\[b#b,###,###\],\[###,###,RNR\],\[#q#,###,#K#\]]
26 undo
#? [cannot undo]*

# Mate in 1 for black, played: the white king is then checkmated.
set_board [rb#,###,nNK],[###,##b,#b#],[###,##k,###] b
30 play na1(III)-b1(I)
#? []
31 status
#? [checkmate]
32 checkers
#? [nb1\(I\)]
33 legal_moves
#? []
34 undo
#? []
35 get_board
#? [\[rb#,###,nNK\],\[###,##b,#b#\],\[###,##k,###\] b]

# A position where the side not to move is in check arises in no game: play refuses it,
# while the analysis still answers.
set_board [#q,##],[##,K#] b
40 play qb2(II)-b1(II)
#? [the side not to move is in check]*
41 status
#? [normal]
