# Raumschach (docs/rules.md, "Variants"): Maack's 5x5x5 chess with pawns, unicorns and the
# bishop on the 12 flat diagonals, after `variant raumschach` (set_board keeps it). Expected
# answers were worked out by tests/raumschach_reference.py, the brute force written from the
# rules, and tests/test_regress.py checks that they still are.

variant raumschach
1 variant
#? [raumschach]
2 get_board
#? [\[rnknr,ppppp,#####,#####,#####\],\[ubqub,ppppp,#####,#####,#####\],\[#####,#####,#####,#####,#####\],\[#####,#####,#####,PPPPP,BUQBU\],\[#####,#####,#####,PPPPP,RNKNR\]]

# The start's perft (rules.md): 61, 3,615, 237,316.
3 perft 1
#? [61]
4 perft 2
#? [3615]
5 perft 3
#? [237316]

# Pawns step one cell, forward or up, onto an empty cell: never two, never onto a piece.
10 play Pa2(I)-a4(I)
#? [illegal move: the white pawn on a2\(I\) cannot move to a4\(I\)]*
11 play Pb2(I)-b2(II)
#? [illegal move: the white pawn on b2\(I\) cannot move to b2\(II\)]*
12 play Pb2(II)-b2(III)
#? []
13 play pa4(IV)-a3(IV)
#? []
14 play Pa2(I)-a3(I)
#? []
15 get_board
#? [\[rnknr,ppppp,#####,#####,#####\],\[ubqub,#pppp,p####,#####,#####\],\[#####,#####,#####,#P###,#####\],\[#####,#####,#####,P#PPP,BUQBU\],\[#####,#####,P####,#PPPP,RNKNR\] b]
16 undo
#? []
17 undo
#? []
18 undo
#? []
19 perft 1
#? [61]

# A pawn takes one cell diagonally forward in the planes of its moves: five cells.
set_board [####k,#####,#####,#####,#####],[#####,##n##,#n#n#,#####,#####],[#####,#n#n#,##P##,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#####,#####,K####] w
20 legal_moves
#? [Ka1\(I\)-a1\(II\) Ka1\(I\)-a2\(I\) Ka1\(I\)-a2\(II\) Ka1\(I\)-b1\(I\) Ka1\(I\)-b1\(II\) Ka1\(I\)-b2\(I\) Pc3\(III\)-c3\(IV\) Pc3\(III\)-c4\(III\) Pc3\(III\)xb3\(IV\) Pc3\(III\)xb4\(III\) Pc3\(III\)xc4\(IV\) Pc3\(III\)xd3\(IV\) Pc3\(III\)xd4\(III\)]
21 perft 2
#? [1043]
# Black's pawns the same way down: the position turned through the centre.
set_board [####k,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,##p##,#N#N#,#####],[#####,#####,#N#N#,##N##,#####],[#####,#####,#####,#####,K####] b
22 legal_moves
#? [ke5\(V\)-d4\(V\) ke5\(V\)-d5\(IV\) ke5\(V\)-d5\(V\) ke5\(V\)-e4\(IV\) ke5\(V\)-e4\(V\) ke5\(V\)-e5\(IV\) pc3\(III\)-c2\(III\) pc3\(III\)-c3\(II\) pc3\(III\)xb2\(III\) pc3\(III\)xb3\(II\) pc3\(III\)xc2\(II\) pc3\(III\)xd2\(III\) pc3\(III\)xd3\(II\)]
23 perft 2
#? [1043]

# The bishop runs on the 12 flat diagonals, the unicorn on the 8 triagonals (the cube's bishop).
set_board [#####,####k,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,##B##,#####,#####],[#####,#####,#####,#####,#####],[K####,#####,#####,#####,#####] w
30 perft 1
#? [31]
31 perft 2
#? [295]
set_board [#####,####k,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,##U##,#####,#####],[#####,#####,#####,#####,#####],[K####,#####,#####,#####,#####] w
32 perft 1
#? [22]
33 perft 2
#? [220]

# Promotion on rank 5 of level E (V), by a step: the move names what the pawn becomes.
set_board [#####,##P##,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,####k,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#####,#####,K####] w
40 legal_moves
#? [Ka1\(I\)-a1\(II\) Ka1\(I\)-a2\(I\) Ka1\(I\)-a2\(II\) Ka1\(I\)-b1\(I\) Ka1\(I\)-b1\(II\) Ka1\(I\)-b2\(I\) Ka1\(I\)-b2\(II\) Pc4\(V\)-c5\(V\)=B Pc4\(V\)-c5\(V\)=N Pc4\(V\)-c5\(V\)=Q Pc4\(V\)-c5\(V\)=R Pc4\(V\)-c5\(V\)=U]
41 perft 2
#? [202]
42 play Pc4(V)-c5(V)
#? [illegal move: the pawn promotes on c5\(V\): write what it becomes \(=Q, =R, =B, =U, =N\)]*
43 play Pc4(V)-c5(V)=K
#? [illegal move: a pawn cannot become a king .*]*
44 play Pc4(V)-c5(V)=U
#? []
45 get_board
#? [\[##U##,#####,#####,#####,#####\],.* b]
46 undo
#? []

# The mate by promotion: the pawn takes the rook and becomes a queen.
set_board [kr###,P####,#####,#####,#####],[#R###,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#K###,#####,#####],[#####,#####,#####,#####,#####] w
50 mate_in 1
#? [Pa4\(V\)xb5\(V\)=Q]
51 perft 2
#? [474]
52 perft 3
#? [15528]
53 play Pa4(V)-a5(V)=Q
#? [illegal move: the white pawn on a4\(V\) cannot move to a5\(V\)]*
54 play Pa4(V)xb5(V)=N
#? []
55 status
#? [normal]
56 undo
#? []
# Raumschach's own spelling, level letter first, and the choice in either case.
57 play PEa4xEb5=q
#? []
58 status
#? [checkmate]
59 result
#? [1-0 \(checkmate\)]
# Black's the same, turned through the centre: its pawn promotes on rank 1 of level A (I).
set_board [#####,#####,#####,#####,#####],[#####,#####,###k#,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#####,#####,###r#],[#####,#####,#####,####p,###RK] b
60 mate_in 1
#? [pe2\(I\)xd1\(I\)=q]
61 perft 2
#? [474]

# Positions Raumschach cannot have are refused, naming the piece.
70 set_board [#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,##k##,#####,#####],[#####,#####,#####,#####,#####],[K####,#####,#####,#####,#P###] w
#? [invalid board: a white pawn on b1\(I\): no pawn of its side ever stands behind its pawns' start]*
71 set_board [P###k,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[K####,#####,#####,#####,#####] w
#? [invalid board: a white pawn on a5\(V\): it would have promoted there]*
72 set_board [####k,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[K####,#####,#####,#####,p####] w
#? [invalid board: a black pawn on a1\(I\): it would have promoted there]*
73 set_board [#p##k,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[K####,#####,#####,#####,#####] w
#? [invalid board: a black pawn on b5\(V\): no pawn of its side ever stands behind its pawns' start]*
# The refusals changed nothing: the last position is still there.
74 perft 2
#? [474]
75 variant
#? [raumschach]

# A unicorn is no piece of the cube; the variant is chosen again for what follows.
variant cube
80 set_board [####k,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[K####,#####,#####,#####,####U] w
#? [invalid board: unknown character 'U' in row 25 '####U': a unicorn is no piece of cube .*]*
81 new_game 5 raumschach
#? []
82 perft 2
#? [3615]
