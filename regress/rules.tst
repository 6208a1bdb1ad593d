# The rules on hand-made positions: pins, lines through the king's own cell, blocks,
# double checks and stalemates (docs/rules.md). Every expected answer here was worked out by
# the brute force in tests/reference.py, and tests/test_regress.py checks that it still is.

# Pins. The knight on b1(I) stands between its king and the rook c1(I): it may
# not move at all, so only king moves are legal.
set_board [##k,###,###],[###,###,###],[###,###,KNr]
100 status
#? [normal]
101 checkers
#? []
102 legal_moves
#? [Ka1\(I\)-a1\(II\) Ka1\(I\)-a2\(I\) Ka1\(I\)-a2\(II\) Ka1\(I\)-b1\(II\) Ka1\(I\)-b2\(I\)]

# A pinned rook may still slide along its pin line, and take the pinning rook.
set_board [###k,####,####,####],[####,####,####,####],[####,####,####,####],[####,####,####,KR#r]
110 status
#? [normal]
111 checkers
#? []
112 legal_moves
#? [Ka1\(I\)-a1\(II\) Ka1\(I\)-a2\(I\) Ka1\(I\)-a2\(II\) Ka1\(I\)-b1\(II\) Ka1\(I\)-b2\(I\) Ka1\(I\)-b2\(II\) Rb1\(I\)-c1\(I\) Rb1\(I\)xd1\(I\)]

# A pin along a triagonal: the bishop b2(II) may only take the bishop c3(III).
set_board [##b,###,##k],[###,#B#,###],[###,###,K##]
120 status
#? [normal]
121 checkers
#? []
122 legal_moves
#? [Bb2\(II\)xc3\(III\) Ka1\(I\)-a1\(II\) Ka1\(I\)-a2\(I\) Ka1\(I\)-a2\(II\) Ka1\(I\)-b1\(I\) Ka1\(I\)-b2\(I\)]

# The knight could take the checking queen, but the rook a1(I) pins it (reference case 7).
set_board [###,###,##q],[###,###,###],[#k#,###,rNK]
130 checkmate
#? [true]
131 status
#? [checkmate]
132 checkers
#? [qc1\(III\)]
133 legal_moves
#? []

# Lines through the king's cell. The rook a4(I) checks down the a-file; a1(I), behind
# the king on the same line, stays attacked once the king steps there.
set_board [###k,####,####,####],[####,####,####,####],[####,####,####,####],[r###,####,K###,####]
200 status
#? [check]
201 checkers
#? [ra4\(I\)]
202 legal_moves
#? [Ka2\(I\)-a1\(II\) Ka2\(I\)-a2\(II\) Ka2\(I\)-a3\(II\) Ka2\(I\)-b1\(I\) Ka2\(I\)-b1\(II\) Ka2\(I\)-b2\(I\) Ka2\(I\)-b2\(II\) Ka2\(I\)-b3\(I\) Ka2\(I\)-b3\(II\)]

# The same along a triagonal: the bishop d4(IV) checks b2(II), and a1(I) behind it is
# no flight.
set_board [###b,####,####,###k],[####,####,####,####],[####,####,#K##,####],[####,####,####,####]
210 status
#? [check]
211 checkers
#? [bd4\(IV\)]
212 legal_moves
#? [Kb2\(II\)-a1\(II\) Kb2\(II\)-a1\(III\) Kb2\(II\)-a2\(I\) Kb2\(II\)-a2\(II\) Kb2\(II\)-a2\(III\) Kb2\(II\)-a3\(I\) Kb2\(II\)-a3\(II\) Kb2\(II\)-a3\(III\) Kb2\(II\)-b1\(I\) Kb2\(II\)-b1\(II\) Kb2\(II\)-b1\(III\) Kb2\(II\)-b2\(I\) Kb2\(II\)-b2\(III\) Kb2\(II\)-b3\(I\) Kb2\(II\)-b3\(II\) Kb2\(II\)-b3\(III\) Kb2\(II\)-c1\(I\) Kb2\(II\)-c1\(II\) Kb2\(II\)-c2\(I\) Kb2\(II\)-c2\(II\) Kb2\(II\)-c3\(I\) Kb2\(II\)-c3\(II\)]

# Blocks. The queen c1(III) checks the king c3(III) up the c-file; no flight and no
# capture, but the bishop blocks on c2(III).
set_board [##K,###,#rq],[#B#,###,###],[###,#k#,###]
300 status
#? [check]
301 checkers
#? [qc1\(III\)]
302 legal_moves
#? [Bb3\(II\)-c2\(III\)]

# Reference case 6: the queen would come to block or take, but her own knight stands in
# her way.
set_board [##k,###,r#K],[###,n##,#N#],[###,###,#Q#]
310 checkmate
#? [true]
311 status
#? [checkmate]
312 legal_moves
#? []

# Double checks. The knight c1(II) and the queen a2(II) both check a1(I): nothing
# answers both, so it is mate.
set_board [###,###,###],[###,q##,##n],[###,###,K##]
400 checkmate
#? [true]
401 status
#? [checkmate]
402 checkers
#? [nc1\(II\) qa2\(II\)]
403 legal_moves
#? []

# The same with a white rook that could take the knight c1(II): against two checkers
# only a king move helps, so it is still mate.
set_board [###,###,###],[###,q##,##n],[###,###,K#R]
410 checkmate
#? [true]
411 status
#? [checkmate]
412 checkers
#? [nc1\(II\) qa2\(II\)]
413 legal_moves
#? []

# A double check the king answers by taking the queen next to it.
set_board [##,b#],[#K,q#]
420 checkmate
#? [false]
421 status
#? [check]
422 checkers
#? [ba1\(II\) qa1\(I\)]
423 legal_moves
#? [Kb2\(I\)xa1\(I\)]

# Stalemates are not mate. White's knight and king cannot move, and no black piece checks.
set_board [##,rr],[NK,##]
500 checkmate
#? [false]
501 status
#? [stalemate]
502 checkers
#? []
503 legal_moves
#? []

# The rook b3(III) and the queen a2(I) take every flight of a1(III) without checking it.
set_board [#r#,###,K##],[###,###,###],[###,q##,###]
510 checkmate
#? [false]
511 status
#? [stalemate]
512 legal_moves
#? []

# Only black in check: the white rook attacks the black king; white is not in check.
set_board [k#R,###,###],[###,###,###],[###,###,K##]
600 checkmate
#? [false]
601 status
#? [normal]
602 checkers
#? []
