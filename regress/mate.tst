# Mate in N (docs/rules.md): the keys, and the solution tree. Expected answers were worked
# out by tests/reference.py, and tests/test_regress.py checks that they still are.

# Black mates in 1, by one move only.
set_board [rb#,###,nNK],[###,##b,#b#],[###,##k,###] b
1 mate_in 1
#? [na1\(III\)-b1\(I\)]
2 solution 1
#? [na1\(III\)-b1\(I\) #]
3 mate_in 2
#? [na1\(III\)-b1\(I\)( .*)?]

# No mate in 1; mate in 2 by two keys, each answered by the rook.
set_board [###,#k#,#b#],[##b,###,###],[r##,##K,###] b
10 mate_in 1
#? []
11 mate_in 2
#? [bb1\(III\)-a2\(II\) bb1\(III\)-c2\(II\)]
12 solution 2
#? [bb1\(III\)-a2\(II\)\n  Kc2\(I\)-c1\(I\) ra3\(I\)-c3\(I\) #\nbb1\(III\)-c2\(II\)\n  Kc2\(I\)-c1\(I\) ra3\(I\)-c3\(I\) #]

# White mates in 1 with the queen; in 2, many moves mate (the shorter mates count too).
set_board [#k#,###,#K#],[###,###,###],[###,#RQ,###]
30 mate_in 1
#? [Qc2\(I\)-b2\(II\)]
31 solution 1
#? [Qc2\(I\)-b2\(II\) #]
32 mate_in 2
#? [Kb1\(III\)-a1\(II\) .* Qc2\(I\)-b2\(II\) .* Rb2\(I\)-b3\(I\)]
33 play Qc2(I)-b2(II)
#? []
34 status
#? [checkmate]
35 checkers
#? [Qb2\(II\)]

# Reference cases 8 and 9, white to move: white has no mate; 9 is already mate.
set_board [#q,##],[##,K#]
20 mate_in 1
#? []
set_board [rq,##],[##,K#]
21 mate_in 2
#? []

# Refusals: N below 1, N not a number.
22 mate_in 0
#? [N must be 1 or more, got 0]*
23 solution x
#? [N must be a whole number.*]*

# mate_search: the shortest mate, its length and every key of that length.
set_board [###,#k#,#b#],[##b,###,###],[r##,##K,###] b
40 mate_search
#? [2 bb1\(III\)-a2\(II\) bb1\(III\)-c2\(II\)]
41 mate_search 1
#? [no mate within 1 move]*
set_board [rb#,###,nNK],[###,##b,#b#],[###,##k,###] b
42 mate_search 3
#? [1 na1\(III\)-b1\(I\)]

# A mate in 3 by one key only, and a mate in 4 by one key: none shorter.
set_board [K##,###,###],[###,rr#,###],[###,#k#,#n#] b
43 mate_search
#? [3 ra2\(II\)-a3\(II\)]
44 mate_in 2
#? []
set_board [###,###,k##],[###,###,#R#],[###,#K#,#R#]
45 mate_search 3
#? [no mate within 3 moves]*
46 mate_search 4
#? [4 Rb1\(II\)-b1\(III\)]
47 mate_in 4
#? [Rb1\(II\)-b1\(III\)]

# Refusals: MAX below 1, MAX not a number.
48 mate_search 0
#? [MAX must be 1 or more, got 0]*
49 mate_search many
#? [MAX must be a whole number.*]*
