# Best moves (issue 21): reg_genmove at a fixed level depth names the move without playing it.
# The expected answers were worked out by tests/reference.py, and tests/test_genmove.py checks
# that they still are. The test numbers say what each answer must do:
#   1xx  mate in 1, every key (level depth 1)
#   2xx  mate in 2 and not in 1, every key (level depth 3)
#   3xx  take a queen that nothing guards (level depth 2)
#   4xx  keep the opponent from mating in one, when most moves do not (level depth 2)

level depth 1

# Black mates in 1 by one move only (rules.md).
set_board [rb#,###,nNK],[###,##b,#b#],[###,##k,###] b
101 reg_genmove
#? [na1\(III\)-b1\(I\)]

# White mates in 1 with the queen (mate.tst).
set_board [#k#,###,#K#],[###,###,###],[###,#RQ,###]
102 reg_genmove
#? [Qc2\(I\)-b2\(II\)]

# Seeded mates in 1 on 4³ and 5³, white and black.
set_board [#N##,####,##QQ,k###],[##K#,####,####,####],[####,####,####,####],[####,####,#R##,####]
103 reg_genmove
#? [Qc2\(IV\)-a2\(IV\)|Qc2\(IV\)-b2\(III\)|Qc2\(IV\)-b2\(IV\)]

set_board [#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],[#r###,#####,#####,#####,###b#],[#####,#####,#####,##q##,#####],[###rr,####b,####K,#####,##R##] b
104 reg_genmove
#? [qc2\(II\)-d3\(I\)|qc2\(II\)-d3\(II\)]

level depth 3

# Black mates in 2 by two keys (rules.md).
set_board [###,#k#,#b#],[##b,###,###],[r##,##K,###] b
201 reg_genmove
#? [bb1\(III\)-a2\(II\)|bb1\(III\)-c2\(II\)]

# Seeded mates in 2 on 4³ and 5³, white and black.
set_board [####,####,####,####],[####,####,KQ##,q###],[#N##,####,N###,####],[####,####,#B#B,k###]
202 reg_genmove
#? [Ka2\(III\)xa1\(III\)|Qb2\(III\)xa1\(III\)]

set_board [#r##,####,###K,n###],[####,####,##r#,###r],[####,####,####,##b#],[####,####,q###,####] b
203 reg_genmove
#? [qa2\(I\)-b2\(II\)]

set_board [k####,#####,#####,#####,#####],[#####,#R###,#####,#####,#####],[#q##K,R####,##Q##,#####,#####],[###N#,#####,##Q##,#####,#####],[#####,#####,#####,#####,#####]
204 reg_genmove
#? [Nd5\(II\)xb5\(III\)]

set_board [#####,#####,N####,#####,K####],[#####,#####,#####,##k##,#####],[#####,#####,r####,#####,#####],[#####,#####,#####,q####,#####],[#####,#####,#####,#####,#####] b
205 reg_genmove
#? [ra3\(III\)xa3\(V\)]

# The second depth finds a mate in 3 (bb3(II)-c2(III)) through the check extension; the
# search goes on until the plies searched in full reach the mate, and finds the mate in 2.
set_board [q##,r##,###],[#b#,###,#N#],[#bK,###,r##] b
206 reg_genmove
#? [ra2\(III\)-a2\(II\)|ra2\(III\)-b2\(III\)]

level depth 2

# A queen that nothing guards, white to take and black to take.
set_board [###k,####,####,####],[####,####,####,####],[####,####,####,####],[####,###q,####,K##R]
301 reg_genmove
#? [Rd1\(I\)xd3\(I\)]

set_board [####,####,####,###K],[####,####,####,####],[####,####,####,####],[k##r,####,###Q,####] b
302 reg_genmove
#? [rd4\(I\)xd2\(I\)]

# Most moves allow a mate in one; these do not.
set_board [kN#,###,###],[###,#RQ,b##],[B##,K##,###] b
401 reg_genmove
#? [ka3\(III\)-a2\(III\)]

set_board [b###,####,n#q#,####],[##b#,K###,####,#B##],[r###,#r##,####,####],[####,####,#q##,####]
402 reg_genmove
#? [Bb1\(III\)xa2\(IV\)|Bb1\(III\)xc2\(IV\)]

set_board [K###,n###,k###,####],[##R#,#N##,##r#,q###],[####,####,####,####],[####,####,####,####]
403 reg_genmove
#? [Ka4\(IV\)-b4\(III\)|Ka4\(IV\)-b4\(IV\)|Nb3\(III\)xa1\(III\)|Rc4\(III\)-a4\(III\)]

set_board [####,R###,####,###k],[####,####,####,####],[###Q,####,##b#,#K#B],[####,####,##Q#,####] b
404 reg_genmove
#? [kd1\(IV\)-c1\(IV\)|kd1\(IV\)-c2\(IV\)|kd1\(IV\)-d1\(III\)|kd1\(IV\)-d2\(III\)]

# reg_genmove played nothing: the last position is still there, and so is the level.
405 get_board
#? [\[####,R###,####,###k\],\[####,####,####,####\],\[###Q,####,##b#,#K#B\],\[####,####,##Q#,####\] b]
406 level
#? [depth 2 nodes 0 time 1]
