# The ten reference cases of docs/rules.md: is the white king checkmated?
# Each case sets its board; test N0 asks checkmate and N1 status for case N (the format
# of GTP regression suites: see README.md).

set_board 3 [###,n##,#rr],[#b#,###,###],[###,###,bRK]
10 checkmate
#? [true]
11 status
#? [checkmate]

set_board 3 [b#b,###,###],[###,###,RNR],[#q#,###,#K#]
20 checkmate
#? [false]
21 status
#? [check]

set_board 3 [#q#,#b#,###],[n##,###,###],[#k#,###,#KB]
30 checkmate
#? [false]
31 status
#? [check]

set_board 4 [####,####,r###,####],[####,#q##,####,####],[##r#,###b,####,BRnn],[####,####,#N##,#KQ#]
40 checkmate
#? [true]
41 status
#? [checkmate]

set_board 3 [###,##b,r#r],[###,###,###],[#k#,###,#K#]
50 checkmate
#? [false]
51 status
#? [stalemate]

set_board 3 [##k,###,r#K],[###,n##,#N#],[###,###,#Q#]
60 checkmate
#? [true]
61 status
#? [checkmate]

set_board 3 [###,###,##q],[###,###,###],[#k#,###,rNK]
70 checkmate
#? [true]
71 status
#? [checkmate]

set_board 2 [#q,##],[##,K#]
80 checkmate
#? [false]
81 status
#? [check]

set_board 2 [rq,##],[##,K#]
90 checkmate
#? [true]
91 status
#? [checkmate]

set_board 3 [###,###,#q#],[###,###,###],[#k#,###,BKn]
100 checkmate
#? [false]
101 status
#? [check]
