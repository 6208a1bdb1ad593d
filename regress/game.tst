# A whole game (docs/rules.md, "The start position", "The end of a game", "Game records"):
# new_game, result, showboard's result line, printgame and loadgame. Refusals are expected
# failures (see protocol.tst). loadgame reads game-records.txt beside this file: both runners
# start the engine in the suite's folder (docs/regress.md).

# The start positions, and the 2-cube that has none.
1 new_game 3
#? []
2 get_board
#? [\[#k#,b#b,rnr\],\[###,###,###\],\[RNR,B#B,#K#\]]
3 result
#? [\*]
4 perft 2
#? [166]
5 new_game 2
#? [no game on a board of size 2: .*]*
6 new_game 1
#? [unacceptable size .*]*
7 new_game x
#? [N must be a whole number.*]*
8 new_game 65
#? [unacceptable size .*]*
9 get_board
#? [\[#k#,b#b,rnr\],\[###,###,###\],\[RNR,B#B,#K#\]]
10 new_game 4
#? []
11 get_board
#? [\[nrrk,bnbq,####,####\],\[####,####,####,####\],\[####,####,####,####\],\[####,####,QBNB,KRRN\]]
12 perft 1
#? [45]
13 boardsize 5
#? []
14 new_game
#? []
15 perft 1
#? [78]

# White mates on the third ply; the result is named, the game is over, undo takes it back.
new_game 3
20 play Ra3(I)-a3(II)
#? []
21 play nb1(III)-c3(III)
#? []
22 result
#? [\*]
23 play Ra3(II)-a3(III)
#? []
24 result
#? [1-0 \(checkmate\)]
25 showboard
#? [.*\nblack to move\nresult: 1-0 \(checkmate\)]
26 legal_moves
#? []
27 play kb3(III)-b2(III)
#? [game over: 1-0 \(checkmate\)]*
28 printgame
#? [Size: 3\nStart: \[#k#,b#b,rnr\],\[###,###,###\],\[RNR,B#B,#K#\] w\nResult: 1-0 \(checkmate\)\nDate: [0-9-]+\n1\. Ra3\(II\) Nc3\(III\)\n2\. Ra3\(III\)#]
29 undo
#? []
30 result
#? [\*]
31 showboard
#? [!.*result:.*]

# Stalemate, black stalemating white.
set_board [###,###,r#r],[###,###,#b#],[#k#,###,#K#] b
40 play bb1(II)-c2(III)
#? []
41 result
#? [1/2-1/2 \(stalemate\)]
42 play Kb1(I)-a1(I)
#? [game over: 1/2-1/2 \(stalemate\)]*

# Threefold repetition: the knights out and back twice; the draw is a claim, play goes on.
new_game 4
play Nd1(I)-c3(I)
play na4(IV)-b2(IV)
play Nc3(I)-d1(I)
play nb2(IV)-a4(IV)
play Nd1(I)-c3(I)
play na4(IV)-b2(IV)
play Nc3(I)-d1(I)
50 result
#? [\*]
51 play nb2(IV)-a4(IV)
#? []
52 result
#? [1/2-1/2 \(threefold repetition\)]
53 play Nd1(I)-d3(II)
#? []
54 result
#? [\*]
55 undo
#? []
56 result
#? [1/2-1/2 \(threefold repetition\)]

# Insufficient material: the king takes the last other piece.
set_board [k##,###,###],[###,###,###],[###,#r#,##K]
60 result
#? [\*]
61 play Kc1(I)xb2(I)
#? []
62 result
#? [1/2-1/2 \(insufficient material\)]
63 play ka3(III)-a2(III)
#? []
64 result
#? [1/2-1/2 \(insufficient material\)]

# Records: the first game of the file, its first two plies, the second, the third refused.
70 loadgame game-records.txt
#? []
71 result
#? [0-1 \(checkmate\)]
72 printgame
#? [Size: 3\n.*\nResult: 0-1 \(checkmate\)\nDate: 2026-12-01\nWhite: one\nBlack: another\n1\. .*\n2\. Nc1\(I\) Ra1\(I\)#]
73 loadgame game-records.txt 2
#? []
74 get_board
#? [\[#k#,b#b,#nr\],\[R##,###,r##\],\[#NR,B#B,#K#\]]
75 undo
#? []
76 undo
#? []
77 undo
#? [cannot undo]*
78 loadgame game-records.txt end 2
#? []
79 result
#? [1/2-1/2 \(stalemate\)]
80 loadgame game-records.txt end 3
#? ['game-records.txt' game 3, ply 3 \(line 28\): illegal move: .*]*
81 loadgame game-records.txt 2 3
#? []
82 loadgame game-records.txt end 4
#? [.* holds 3 games; there is no game 4]*
83 loadgame missing.txt
#? [cannot read .*]*
84 loadgame .
#? ['\.' is a directory]*
# The refusals changed nothing: the game is still the third at its second ply.
85 get_board
#? [\[#rrk,bnbq,#n##,####\],\[####,####,####,####\],\[####,####,####,####\],\[####,##N#,QBNB,KRR#\]]
