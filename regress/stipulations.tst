# Selfmates and helpmates (docs/protocol.md): the keys, the selfmate's tree, the helpmate's
# solutions. Expected answers were worked out by the brute force of tests/stipulations.py,
# and tests/test_stipulations.py checks that they still are.

# White selfmates in 1: after Qc3(II)-b2(II) black's only move, the queen taking the queen,
# mates white. The same key, and two more, selfmate in 2.
set_board [###,q##,#B#],[##Q,###,#k#],[##K,###,#b#]
1 selfmate 1
#? [Qc3\(II\)-b2\(II\)]
2 solution 1 selfmate
#? [Qc3\(II\)-b2\(II\)\n  qa2\(III\)xb2\(II\) #]
3 selfmate 2
#? [Qc3\(II\)-b2\(I\) Qc3\(II\)-b2\(II\) Qc3\(II\)-c2\(I\)]

# Black selfmates in 1 by two keys.
set_board [###,#q#,###],[###,n##,Q##],[##k,##N,#K#] b
10 selfmate 1
#? [qb2\(III\)-b2\(I\) qb2\(III\)-b2\(II\)]
11 solution 1 selfmate
#? [qb2\(III\)-b2\(I\)\n  Qa1\(II\)xb2\(I\) #\nqb2\(III\)-b2\(II\)\n  Qa1\(II\)xb2\(II\) #]

# White selfmates in 2 and not in 1; the tree goes down to black's mating answers.
set_board [k##,###,##q],[#bK,###,n##],[#QQ,###,###]
20 selfmate 1
#? []
21 selfmate 2
#? [Qb3\(I\)-a2\(II\) Qb3\(I\)-a3\(II\) Qb3\(I\)xb3\(II\) Qc3\(I\)xb3\(II\)]
22 solution 2 selfmate
#? [Qb3\(I\)-a2\(II\)\n  ka3\(III\)xa2\(II\) Qc3\(I\)-b2\(II\)\n    qc1\(III\)xb2\(II\) #\nQb3\(I\)-a3\(II\)\n  ka3\(III\)xa3\(II\) Qc3\(I\)-b2\(II\)\n    qc1\(III\)xb2\(II\) #\nQb3\(I\)xb3\(II\)\n  na1\(II\)xb3\(II\) Qc3\(I\)-b2\(II\)\n    qc1\(III\)xb2\(II\) #\nQc3\(I\)xb3\(II\)\n  na1\(II\)xb3\(II\) Qb3\(I\)-b2\(II\)\n    qc1\(III\)xb2\(II\) #]

# Four white moves leave black no move (Qc2(II)-a2(II), Qc2(II)-b1(III), Qc2(II)-c2(III),
# Rc1(III)-c2(III)): none is a key, though "every answer of black mates" holds of them.
set_board [##B,k##,##R],[###,##Q,n##],[RrQ,K##,##q]
30 selfmate 1
#? []
31 selfmate 2
#? [Qc3\(I\)-a1\(III\) Rc1\(III\)-a1\(III\)]

# Helpmates: black moves, white mates. One solution in 1.
set_board [###,B##,###],[K#k,###,#N#],[###,###,##Q] b
40 helpmate 1
#? [1\nkc3\(II\)-c2\(III\) Qc1\(I\)-b2\(II\)]
# Five in 1, and 312 in 2, with the queen alone.
set_board [###,K#Q,###],[###,###,##k],[###,###,###] b
41 helpmate 1
#? [5\nkc1\(II\)-b1\(I\) Qc2\(III\)-b1\(II\)\nkc1\(II\)-b1\(I\) Qc2\(III\)-b2\(II\)\nkc1\(II\)-b2\(I\) Qc2\(III\)-b2\(II\)\nkc1\(II\)-c1\(I\) Qc2\(III\)-b1\(II\)\nkc1\(II\)-c1\(I\) Qc2\(III\)-b2\(II\)]
42 helpmate 2
#? [312\n.*]
# White to move: black has nothing to mate with.
play kc1(II)-b1(I)
43 helpmate 1
#? [0]

# Refusals.
50 selfmate 0
#? [N must be 1 or more, got 0]*
51 helpmate 101
#? [N is too large.*]*
52 solution 1 helpmate
#? [unknown stipulation.*]*
