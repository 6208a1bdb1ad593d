# perft (docs/rules.md): the leaves of the legal move tree D plies deep. Expected counts were
# worked out by tests/reference.py, and tests/test_regress.py checks that they still are.

# Reference case 2, white to move.
set_board [b#b,###,###],[###,###,RNR],[#q#,###,#K#]
1 perft 0
#? [1]
2 perft 1
#? [1]
3 perft 2
#? [4]
4 perft 3
#? [90]

# The mate in 1 of rules.md, black to move.
set_board [rb#,###,nNK],[###,##b,#b#],[###,##k,###] b
10 perft 1
#? [19]
11 perft 2
#? [121]

# The mate in 2 of rules.md, black to move.
set_board [###,#k#,#b#],[##b,###,###],[r##,##K,###] b
20 perft 1
#? [19]
21 perft 2
#? [63]

22 perft 3
#? [1001]

# Reference case 10: the king's capture of the knight is white's only move.
set_board [###,###,#q#],[###,###,###],[#k#,###,BKn]
23 legal_moves
#? [Kb1\(I\)xc1\(I\)]
24 perft 1
#? [1]
25 perft 2
#? [20]
26 perft 3
#? [44]
27 perft 4
#? [807]
# Playing the move leaves one position: its perft 3 is the count above at depth 4.
28 play Kb1(I)xc1(I)
#? []
29 perft 3
#? [807]

# Checkmated and stalemated: no move, so perft 1 is 0.
set_board [rq,##],[##,K#]
30 perft 1
#? [0]
set_board [##,rr],[NK,##]
31 perft 1
#? [0]
32 perft 0
#? [1]

# Refusals: a negative depth; a position where the side not to move is in check.
40 perft -1
#? [D must be 0 or more, got -1]*
set_board [#q,##],[##,K#] b
41 perft 1
#? [the side not to move is in check]*
