-- expect: syntax
-- A plugin whose text names more labels and gotos than any plugin needs is
-- refused at load, before the compiler spends seconds matching them.
bot.hear("go", function() end)
do
  goto l1
  goto l2
  goto l3
  goto l4
  goto l5
  goto l6
  goto l7
  goto l8
  goto l9
  goto l10
  goto l11
  goto l12
  goto l13
  goto l14
  goto l15
  goto l16
  goto l17
  goto l18
  goto l19
  goto l20
  goto l21
  goto l22
  goto l23
  goto l24
  goto l25
  goto l26
  goto l27
  goto l28
  goto l29
  goto l30
  goto l31
  goto l32
  goto l33
  goto l34
  goto l35
  goto l36
  goto l37
  goto l38
  goto l39
  goto l40
  goto l41
  goto l42
  goto l43
  goto l44
  goto l45
  goto l46
  goto l47
  goto l48
  goto l49
  goto l50
  goto l51
  goto l52
  goto l53
  goto l54
  goto l55
  goto l56
  goto l57
  goto l58
  goto l59
  goto l60
  goto l61
  goto l62
  goto l63
  goto l64
  goto l65
  goto l66
  goto l67
  goto l68
  goto l69
  goto l70
  goto l71
  goto l72
  goto l73
  goto l74
  goto l75
  goto l76
  goto l77
  goto l78
  goto l79
  goto l80
  goto l81
  goto l82
  goto l83
  goto l84
  goto l85
  goto l86
  goto l87
  goto l88
  goto l89
  goto l90
  goto l91
  goto l92
  goto l93
  goto l94
  goto l95
  goto l96
  goto l97
  goto l98
  goto l99
  goto l100
  goto l101
  goto l102
  goto l103
  goto l104
  goto l105
  goto l106
  goto l107
  goto l108
  goto l109
  goto l110
  goto l111
  goto l112
  goto l113
  goto l114
  goto l115
  goto l116
  goto l117
  goto l118
  goto l119
  goto l120
  goto l121
  goto l122
  goto l123
  goto l124
  goto l125
  goto l126
  goto l127
  goto l128
  goto l129
  goto l130
  goto l131
  goto l132
  goto l133
  goto l134
  goto l135
  goto l136
  goto l137
  goto l138
  goto l139
  goto l140
  goto l141
  goto l142
  goto l143
  goto l144
  goto l145
  goto l146
  goto l147
  goto l148
  goto l149
  goto l150
  goto l151
  goto l152
  goto l153
  goto l154
  goto l155
  goto l156
  goto l157
  goto l158
  goto l159
  goto l160
  goto l161
  goto l162
  goto l163
  goto l164
  goto l165
  goto l166
  goto l167
  goto l168
  goto l169
  goto l170
  goto l171
  goto l172
  goto l173
  goto l174
  goto l175
  goto l176
  goto l177
  goto l178
  goto l179
  goto l180
  goto l181
  goto l182
  goto l183
  goto l184
  goto l185
  goto l186
  goto l187
  goto l188
  goto l189
  goto l190
  goto l191
  goto l192
  goto l193
  goto l194
  goto l195
  goto l196
  goto l197
  goto l198
  goto l199
  goto l200
  goto l201
  goto l202
  goto l203
  goto l204
  goto l205
  goto l206
  goto l207
  goto l208
  goto l209
  goto l210
  goto l211
  goto l212
  goto l213
  goto l214
  goto l215
  goto l216
  goto l217
  goto l218
  goto l219
  goto l220
  goto l221
  goto l222
  goto l223
  goto l224
  goto l225
  goto l226
  goto l227
  goto l228
  goto l229
  goto l230
  goto l231
  goto l232
  goto l233
  goto l234
  goto l235
  goto l236
  goto l237
  goto l238
  goto l239
  goto l240
  goto l241
  goto l242
  goto l243
  goto l244
  goto l245
  goto l246
  goto l247
  goto l248
  goto l249
  goto l250
  goto l251
  goto l252
  goto l253
  goto l254
  goto l255
  goto l256
  goto l257
  goto l258
  goto l259
  goto l260
  goto l261
  goto l262
  goto l263
  goto l264
  goto l265
  goto l266
  goto l267
  goto l268
  goto l269
  goto l270
  goto l271
  goto l272
  goto l273
  goto l274
  goto l275
  goto l276
  goto l277
  goto l278
  goto l279
  goto l280
  goto l281
  goto l282
  goto l283
  goto l284
  goto l285
  goto l286
  goto l287
  goto l288
  goto l289
  goto l290
  goto l291
  goto l292
  goto l293
  goto l294
  goto l295
  goto l296
  goto l297
  goto l298
  goto l299
  goto l300
  goto l301
  goto l302
  goto l303
  goto l304
  goto l305
  goto l306
  goto l307
  goto l308
  goto l309
  goto l310
  goto l311
  goto l312
  goto l313
  goto l314
  goto l315
  goto l316
  goto l317
  goto l318
  goto l319
  goto l320
  goto l321
  goto l322
  goto l323
  goto l324
  goto l325
  goto l326
  goto l327
  goto l328
  goto l329
  goto l330
  goto l331
  goto l332
  goto l333
  goto l334
  goto l335
  goto l336
  goto l337
  goto l338
  goto l339
  goto l340
  goto l341
  goto l342
  goto l343
  goto l344
  goto l345
  goto l346
  goto l347
  goto l348
  goto l349
  goto l350
  goto l351
  goto l352
  goto l353
  goto l354
  goto l355
  goto l356
  goto l357
  goto l358
  goto l359
  goto l360
  goto l361
  goto l362
  goto l363
  goto l364
  goto l365
  goto l366
  goto l367
  goto l368
  goto l369
  goto l370
  goto l371
  goto l372
  goto l373
  goto l374
  goto l375
  goto l376
  goto l377
  goto l378
  goto l379
  goto l380
  goto l381
  goto l382
  goto l383
  goto l384
  goto l385
  goto l386
  goto l387
  goto l388
  goto l389
  goto l390
  goto l391
  goto l392
  goto l393
  goto l394
  goto l395
  goto l396
  goto l397
  goto l398
  goto l399
  goto l400
  goto l401
  goto l402
  goto l403
  goto l404
  goto l405
  goto l406
  goto l407
  goto l408
  goto l409
  goto l410
  goto l411
  goto l412
  goto l413
  goto l414
  goto l415
  goto l416
  goto l417
  goto l418
  goto l419
  goto l420
  goto l421
  goto l422
  goto l423
  goto l424
  goto l425
  goto l426
  goto l427
  goto l428
  goto l429
  goto l430
  goto l431
  goto l432
  goto l433
  goto l434
  goto l435
  goto l436
  goto l437
  goto l438
  goto l439
  goto l440
  goto l441
  goto l442
  goto l443
  goto l444
  goto l445
  goto l446
  goto l447
  goto l448
  goto l449
  goto l450
  goto l451
  goto l452
  goto l453
  goto l454
  goto l455
  goto l456
  goto l457
  goto l458
  goto l459
  goto l460
  goto l461
  goto l462
  goto l463
  goto l464
  goto l465
  goto l466
  goto l467
  goto l468
  goto l469
  goto l470
  goto l471
  goto l472
  goto l473
  goto l474
  goto l475
  goto l476
  goto l477
  goto l478
  goto l479
  goto l480
  goto l481
  goto l482
  goto l483
  goto l484
  goto l485
  goto l486
  goto l487
  goto l488
  goto l489
  goto l490
  goto l491
  goto l492
  goto l493
  goto l494
  goto l495
  goto l496
  goto l497
  goto l498
  goto l499
  goto l500
  goto l501
  goto l502
  goto l503
  goto l504
  goto l505
  goto l506
  goto l507
  goto l508
  goto l509
  goto l510
  goto l511
  goto l512
  goto l513
  goto l514
  goto l515
  goto l516
  goto l517
  goto l518
  goto l519
  goto l520
  goto l521
  goto l522
  goto l523
  goto l524
  goto l525
  goto l526
  goto l527
  goto l528
  goto l529
  goto l530
  goto l531
  goto l532
  goto l533
  goto l534
  goto l535
  goto l536
  goto l537
  goto l538
  goto l539
  goto l540
  goto l541
  goto l542
  goto l543
  goto l544
  goto l545
  goto l546
  goto l547
  goto l548
  goto l549
  goto l550
  goto l551
  goto l552
  goto l553
  goto l554
  goto l555
  goto l556
  goto l557
  goto l558
  goto l559
  goto l560
  goto l561
  goto l562
  goto l563
  goto l564
  goto l565
  goto l566
  goto l567
  goto l568
  goto l569
  goto l570
  goto l571
  goto l572
  goto l573
  goto l574
  goto l575
  goto l576
  goto l577
  goto l578
  goto l579
  goto l580
  goto l581
  goto l582
  goto l583
  goto l584
  goto l585
  goto l586
  goto l587
  goto l588
  goto l589
  goto l590
  goto l591
  goto l592
  goto l593
  goto l594
  goto l595
  goto l596
  goto l597
  goto l598
  goto l599
  goto l600
  goto l601
  goto l602
  goto l603
  goto l604
  goto l605
  goto l606
  goto l607
  goto l608
  goto l609
  goto l610
  goto l611
  goto l612
  goto l613
  goto l614
  goto l615
  goto l616
  goto l617
  goto l618
  goto l619
  goto l620
  goto l621
  goto l622
  goto l623
  goto l624
  goto l625
  goto l626
  goto l627
  goto l628
  goto l629
  goto l630
  goto l631
  goto l632
  goto l633
  goto l634
  goto l635
  goto l636
  goto l637
  goto l638
  goto l639
  goto l640
  goto l641
  goto l642
  goto l643
  goto l644
  goto l645
  goto l646
  goto l647
  goto l648
  goto l649
  goto l650
  goto l651
  goto l652
  goto l653
  goto l654
  goto l655
  goto l656
  goto l657
  goto l658
  goto l659
  goto l660
  goto l661
  goto l662
  goto l663
  goto l664
  goto l665
  goto l666
  goto l667
  goto l668
  goto l669
  goto l670
  goto l671
  goto l672
  goto l673
  goto l674
  goto l675
  goto l676
  goto l677
  goto l678
  goto l679
  goto l680
  goto l681
  goto l682
  goto l683
  goto l684
  goto l685
  goto l686
  goto l687
  goto l688
  goto l689
  goto l690
  goto l691
  goto l692
  goto l693
  goto l694
  goto l695
  goto l696
  goto l697
  goto l698
  goto l699
  goto l700
  goto l701
  goto l702
  goto l703
  goto l704
  goto l705
  goto l706
  goto l707
  goto l708
  goto l709
  goto l710
  goto l711
  goto l712
  goto l713
  goto l714
  goto l715
  goto l716
  goto l717
  goto l718
  goto l719
  goto l720
  goto l721
  goto l722
  goto l723
  goto l724
  goto l725
  goto l726
  goto l727
  goto l728
  goto l729
  goto l730
  goto l731
  goto l732
  goto l733
  goto l734
  goto l735
  goto l736
  goto l737
  goto l738
  goto l739
  goto l740
  goto l741
  goto l742
  goto l743
  goto l744
  goto l745
  goto l746
  goto l747
  goto l748
  goto l749
  goto l750
  goto l751
  goto l752
  goto l753
  goto l754
  goto l755
  goto l756
  goto l757
  goto l758
  goto l759
  goto l760
  goto l761
  goto l762
  goto l763
  goto l764
  goto l765
  goto l766
  goto l767
  goto l768
  goto l769
  goto l770
  goto l771
  goto l772
  goto l773
  goto l774
  goto l775
  goto l776
  goto l777
  goto l778
  goto l779
  goto l780
  goto l781
  goto l782
  goto l783
  goto l784
  goto l785
  goto l786
  goto l787
  goto l788
  goto l789
  goto l790
  goto l791
  goto l792
  goto l793
  goto l794
  goto l795
  goto l796
  goto l797
  goto l798
  goto l799
  goto l800
  goto l801
  goto l802
  goto l803
  goto l804
  goto l805
  goto l806
  goto l807
  goto l808
  goto l809
  goto l810
  goto l811
  goto l812
  goto l813
  goto l814
  goto l815
  goto l816
  goto l817
  goto l818
  goto l819
  goto l820
  goto l821
  goto l822
  goto l823
  goto l824
  goto l825
  goto l826
  goto l827
  goto l828
  goto l829
  goto l830
  goto l831
  goto l832
  goto l833
  goto l834
  goto l835
  goto l836
  goto l837
  goto l838
  goto l839
  goto l840
  goto l841
  goto l842
  goto l843
  goto l844
  goto l845
  goto l846
  goto l847
  goto l848
  goto l849
  goto l850
  goto l851
  goto l852
  goto l853
  goto l854
  goto l855
  goto l856
  goto l857
  goto l858
  goto l859
  goto l860
  goto l861
  goto l862
  goto l863
  goto l864
  goto l865
  goto l866
  goto l867
  goto l868
  goto l869
  goto l870
  goto l871
  goto l872
  goto l873
  goto l874
  goto l875
  goto l876
  goto l877
  goto l878
  goto l879
  goto l880
  goto l881
  goto l882
  goto l883
  goto l884
  goto l885
  goto l886
  goto l887
  goto l888
  goto l889
  goto l890
  goto l891
  goto l892
  goto l893
  goto l894
  goto l895
  goto l896
  goto l897
  goto l898
  goto l899
  goto l900
  goto l901
  goto l902
  goto l903
  goto l904
  goto l905
  goto l906
  goto l907
  goto l908
  goto l909
  goto l910
  goto l911
  goto l912
  goto l913
  goto l914
  goto l915
  goto l916
  goto l917
  goto l918
  goto l919
  goto l920
  goto l921
  goto l922
  goto l923
  goto l924
  goto l925
  goto l926
  goto l927
  goto l928
  goto l929
  goto l930
  goto l931
  goto l932
  goto l933
  goto l934
  goto l935
  goto l936
  goto l937
  goto l938
  goto l939
  goto l940
  goto l941
  goto l942
  goto l943
  goto l944
  goto l945
  goto l946
  goto l947
  goto l948
  goto l949
  goto l950
  goto l951
  goto l952
  goto l953
  goto l954
  goto l955
  goto l956
  goto l957
  goto l958
  goto l959
  goto l960
  goto l961
  goto l962
  goto l963
  goto l964
  goto l965
  goto l966
  goto l967
  goto l968
  goto l969
  goto l970
  goto l971
  goto l972
  goto l973
  goto l974
  goto l975
  goto l976
  goto l977
  goto l978
  goto l979
  goto l980
  goto l981
  goto l982
  goto l983
  goto l984
  goto l985
  goto l986
  goto l987
  goto l988
  goto l989
  goto l990
  goto l991
  goto l992
  goto l993
  goto l994
  goto l995
  goto l996
  goto l997
  goto l998
  goto l999
  goto l1000
  goto l1001
  goto l1002
  goto l1003
  goto l1004
  goto l1005
  goto l1006
  goto l1007
  goto l1008
  goto l1009
  goto l1010
  goto l1011
  goto l1012
  goto l1013
  goto l1014
  goto l1015
  goto l1016
  goto l1017
  goto l1018
  goto l1019
  goto l1020
  goto l1021
  goto l1022
  goto l1023
  goto l1024
  goto l1025
  goto l1026
  goto l1027
  goto l1028
  goto l1029
  goto l1030
  goto l1031
  goto l1032
  goto l1033
  goto l1034
  goto l1035
  goto l1036
  goto l1037
  goto l1038
  goto l1039
  goto l1040
  goto l1041
  goto l1042
  goto l1043
  goto l1044
  goto l1045
  goto l1046
  goto l1047
  goto l1048
  goto l1049
  goto l1050
  goto l1051
  goto l1052
  goto l1053
  goto l1054
  goto l1055
  goto l1056
  goto l1057
  goto l1058
  goto l1059
  goto l1060
  goto l1061
  goto l1062
  goto l1063
  goto l1064
  goto l1065
  goto l1066
  goto l1067
  goto l1068
  goto l1069
  goto l1070
  goto l1071
  goto l1072
  goto l1073
  goto l1074
  goto l1075
  goto l1076
  goto l1077
  goto l1078
  goto l1079
  goto l1080
  goto l1081
  goto l1082
  goto l1083
  goto l1084
  goto l1085
  goto l1086
  goto l1087
  goto l1088
  goto l1089
  goto l1090
  goto l1091
  goto l1092
  goto l1093
  goto l1094
  goto l1095
  goto l1096
  goto l1097
  goto l1098
  goto l1099
  goto l1100
  goto l1101
  goto l1102
  goto l1103
  goto l1104
  goto l1105
  goto l1106
  goto l1107
  goto l1108
  goto l1109
  goto l1110
  goto l1111
  goto l1112
  goto l1113
  goto l1114
  goto l1115
  goto l1116
  goto l1117
  goto l1118
  goto l1119
  goto l1120
  goto l1121
  goto l1122
  goto l1123
  goto l1124
  goto l1125
  goto l1126
  goto l1127
  goto l1128
  goto l1129
  goto l1130
  goto l1131
  goto l1132
  goto l1133
  goto l1134
  goto l1135
  goto l1136
  goto l1137
  goto l1138
  goto l1139
  goto l1140
  goto l1141
  goto l1142
  goto l1143
  goto l1144
  goto l1145
  goto l1146
  goto l1147
  goto l1148
  goto l1149
  goto l1150
  goto l1151
  goto l1152
  goto l1153
  goto l1154
  goto l1155
  goto l1156
  goto l1157
  goto l1158
  goto l1159
  goto l1160
  goto l1161
  goto l1162
  goto l1163
  goto l1164
  goto l1165
  goto l1166
  goto l1167
  goto l1168
  goto l1169
  goto l1170
  goto l1171
  goto l1172
  goto l1173
  goto l1174
  goto l1175
  goto l1176
  goto l1177
  goto l1178
  goto l1179
  goto l1180
  goto l1181
  goto l1182
  goto l1183
  goto l1184
  goto l1185
  goto l1186
  goto l1187
  goto l1188
  goto l1189
  goto l1190
  goto l1191
  goto l1192
  goto l1193
  goto l1194
  goto l1195
  goto l1196
  goto l1197
  goto l1198
  goto l1199
  goto l1200
  goto l1201
  goto l1202
  goto l1203
  goto l1204
  goto l1205
  goto l1206
  goto l1207
  goto l1208
  goto l1209
  goto l1210
  goto l1211
  goto l1212
  goto l1213
  goto l1214
  goto l1215
  goto l1216
  goto l1217
  goto l1218
  goto l1219
  goto l1220
  goto l1221
  goto l1222
  goto l1223
  goto l1224
  goto l1225
  goto l1226
  goto l1227
  goto l1228
  goto l1229
  goto l1230
  goto l1231
  goto l1232
  goto l1233
  goto l1234
  goto l1235
  goto l1236
  goto l1237
  goto l1238
  goto l1239
  goto l1240
  goto l1241
  goto l1242
  goto l1243
  goto l1244
  goto l1245
  goto l1246
  goto l1247
  goto l1248
  goto l1249
  goto l1250
  goto l1251
  goto l1252
  goto l1253
  goto l1254
  goto l1255
  goto l1256
  goto l1257
  goto l1258
  goto l1259
  goto l1260
  goto l1261
  goto l1262
  goto l1263
  goto l1264
  goto l1265
  goto l1266
  goto l1267
  goto l1268
  goto l1269
  goto l1270
  goto l1271
  goto l1272
  goto l1273
  goto l1274
  goto l1275
  goto l1276
  goto l1277
  goto l1278
  goto l1279
  goto l1280
  goto l1281
  goto l1282
  goto l1283
  goto l1284
  goto l1285
  goto l1286
  goto l1287
  goto l1288
  goto l1289
  goto l1290
  goto l1291
  goto l1292
  goto l1293
  goto l1294
  goto l1295
  goto l1296
  goto l1297
  goto l1298
  goto l1299
  goto l1300
  goto l1301
  goto l1302
  goto l1303
  goto l1304
  goto l1305
  goto l1306
  goto l1307
  goto l1308
  goto l1309
  goto l1310
  goto l1311
  goto l1312
  goto l1313
  goto l1314
  goto l1315
  goto l1316
  goto l1317
  goto l1318
  goto l1319
  goto l1320
  goto l1321
  goto l1322
  goto l1323
  goto l1324
  goto l1325
  goto l1326
  goto l1327
  goto l1328
  goto l1329
  goto l1330
  goto l1331
  goto l1332
  goto l1333
  goto l1334
  goto l1335
  goto l1336
  goto l1337
  goto l1338
  goto l1339
  goto l1340
  goto l1341
  goto l1342
  goto l1343
  goto l1344
  goto l1345
  goto l1346
  goto l1347
  goto l1348
  goto l1349
  goto l1350
  goto l1351
  goto l1352
  goto l1353
  goto l1354
  goto l1355
  goto l1356
  goto l1357
  goto l1358
  goto l1359
  goto l1360
  goto l1361
  goto l1362
  goto l1363
  goto l1364
  goto l1365
  goto l1366
  goto l1367
  goto l1368
  goto l1369
  goto l1370
  goto l1371
  goto l1372
  goto l1373
  goto l1374
  goto l1375
  goto l1376
  goto l1377
  goto l1378
  goto l1379
  goto l1380
  goto l1381
  goto l1382
  goto l1383
  goto l1384
  goto l1385
  goto l1386
  goto l1387
  goto l1388
  goto l1389
  goto l1390
  goto l1391
  goto l1392
  goto l1393
  goto l1394
  goto l1395
  goto l1396
  goto l1397
  goto l1398
  goto l1399
  goto l1400
  goto l1401
  goto l1402
  goto l1403
  goto l1404
  goto l1405
  goto l1406
  goto l1407
  goto l1408
  goto l1409
  goto l1410
  goto l1411
  goto l1412
  goto l1413
  goto l1414
  goto l1415
  goto l1416
  goto l1417
  goto l1418
  goto l1419
  goto l1420
  goto l1421
  goto l1422
  goto l1423
  goto l1424
  goto l1425
  goto l1426
  goto l1427
  goto l1428
  goto l1429
  goto l1430
  goto l1431
  goto l1432
  goto l1433
  goto l1434
  goto l1435
  goto l1436
  goto l1437
  goto l1438
  goto l1439
  goto l1440
  goto l1441
  goto l1442
  goto l1443
  goto l1444
  goto l1445
  goto l1446
  goto l1447
  goto l1448
  goto l1449
  goto l1450
  goto l1451
  goto l1452
  goto l1453
  goto l1454
  goto l1455
  goto l1456
  goto l1457
  goto l1458
  goto l1459
  goto l1460
  goto l1461
  goto l1462
  goto l1463
  goto l1464
  goto l1465
  goto l1466
  goto l1467
  goto l1468
  goto l1469
  goto l1470
  goto l1471
  goto l1472
  goto l1473
  goto l1474
  goto l1475
  goto l1476
  goto l1477
  goto l1478
  goto l1479
  goto l1480
  goto l1481
  goto l1482
  goto l1483
  goto l1484
  goto l1485
  goto l1486
  goto l1487
  goto l1488
  goto l1489
  goto l1490
  goto l1491
  goto l1492
  goto l1493
  goto l1494
  goto l1495
  goto l1496
  goto l1497
  goto l1498
  goto l1499
  goto l1500
  goto l1501
  goto l1502
  goto l1503
  goto l1504
  goto l1505
  goto l1506
  goto l1507
  goto l1508
  goto l1509
  goto l1510
  goto l1511
  goto l1512
  goto l1513
  goto l1514
  goto l1515
  goto l1516
  goto l1517
  goto l1518
  goto l1519
  goto l1520
  goto l1521
  goto l1522
  goto l1523
  goto l1524
  goto l1525
  goto l1526
  goto l1527
  goto l1528
  goto l1529
  goto l1530
  goto l1531
  goto l1532
  goto l1533
  goto l1534
  goto l1535
  goto l1536
  goto l1537
  goto l1538
  goto l1539
  goto l1540
  goto l1541
  goto l1542
  goto l1543
  goto l1544
  goto l1545
  goto l1546
  goto l1547
  goto l1548
  goto l1549
  goto l1550
  goto l1551
  goto l1552
  goto l1553
  goto l1554
  goto l1555
  goto l1556
  goto l1557
  goto l1558
  goto l1559
  goto l1560
  goto l1561
  goto l1562
  goto l1563
  goto l1564
  goto l1565
  goto l1566
  goto l1567
  goto l1568
  goto l1569
  goto l1570
  goto l1571
  goto l1572
  goto l1573
  goto l1574
  goto l1575
  goto l1576
  goto l1577
  goto l1578
  goto l1579
  goto l1580
  goto l1581
  goto l1582
  goto l1583
  goto l1584
  goto l1585
  goto l1586
  goto l1587
  goto l1588
  goto l1589
  goto l1590
  goto l1591
  goto l1592
  goto l1593
  goto l1594
  goto l1595
  goto l1596
  goto l1597
  goto l1598
  goto l1599
  goto l1600
  goto l1601
  goto l1602
  goto l1603
  goto l1604
  goto l1605
  goto l1606
  goto l1607
  goto l1608
  goto l1609
  goto l1610
  goto l1611
  goto l1612
  goto l1613
  goto l1614
  goto l1615
  goto l1616
  goto l1617
  goto l1618
  goto l1619
  goto l1620
  goto l1621
  goto l1622
  goto l1623
  goto l1624
  goto l1625
  goto l1626
  goto l1627
  goto l1628
  goto l1629
  goto l1630
  goto l1631
  goto l1632
  goto l1633
  goto l1634
  goto l1635
  goto l1636
  goto l1637
  goto l1638
  goto l1639
  goto l1640
  goto l1641
  goto l1642
  goto l1643
  goto l1644
  goto l1645
  goto l1646
  goto l1647
  goto l1648
  goto l1649
  goto l1650
  goto l1651
  goto l1652
  goto l1653
  goto l1654
  goto l1655
  goto l1656
  goto l1657
  goto l1658
  goto l1659
  goto l1660
  goto l1661
  goto l1662
  goto l1663
  goto l1664
  goto l1665
  goto l1666
  goto l1667
  goto l1668
  goto l1669
  goto l1670
  goto l1671
  goto l1672
  goto l1673
  goto l1674
  goto l1675
  goto l1676
  goto l1677
  goto l1678
  goto l1679
  goto l1680
  goto l1681
  goto l1682
  goto l1683
  goto l1684
  goto l1685
  goto l1686
  goto l1687
  goto l1688
  goto l1689
  goto l1690
  goto l1691
  goto l1692
  goto l1693
  goto l1694
  goto l1695
  goto l1696
  goto l1697
  goto l1698
  goto l1699
  goto l1700
  goto l1701
  goto l1702
  goto l1703
  goto l1704
  goto l1705
  goto l1706
  goto l1707
  goto l1708
  goto l1709
  goto l1710
  goto l1711
  goto l1712
  goto l1713
  goto l1714
  goto l1715
  goto l1716
  goto l1717
  goto l1718
  goto l1719
  goto l1720
  goto l1721
  goto l1722
  goto l1723
  goto l1724
  goto l1725
  goto l1726
  goto l1727
  goto l1728
  goto l1729
  goto l1730
  goto l1731
  goto l1732
  goto l1733
  goto l1734
  goto l1735
  goto l1736
  goto l1737
  goto l1738
  goto l1739
  goto l1740
  goto l1741
  goto l1742
  goto l1743
  goto l1744
  goto l1745
  goto l1746
  goto l1747
  goto l1748
  goto l1749
  goto l1750
  goto l1751
  goto l1752
  goto l1753
  goto l1754
  goto l1755
  goto l1756
  goto l1757
  goto l1758
  goto l1759
  goto l1760
  goto l1761
  goto l1762
  goto l1763
  goto l1764
  goto l1765
  goto l1766
  goto l1767
  goto l1768
  goto l1769
  goto l1770
  goto l1771
  goto l1772
  goto l1773
  goto l1774
  goto l1775
  goto l1776
  goto l1777
  goto l1778
  goto l1779
  goto l1780
  goto l1781
  goto l1782
  goto l1783
  goto l1784
  goto l1785
  goto l1786
  goto l1787
  goto l1788
  goto l1789
  goto l1790
  goto l1791
  goto l1792
  goto l1793
  goto l1794
  goto l1795
  goto l1796
  goto l1797
  goto l1798
  goto l1799
  goto l1800
  goto l1801
  goto l1802
  goto l1803
  goto l1804
  goto l1805
  goto l1806
  goto l1807
  goto l1808
  goto l1809
  goto l1810
  goto l1811
  goto l1812
  goto l1813
  goto l1814
  goto l1815
  goto l1816
  goto l1817
  goto l1818
  goto l1819
  goto l1820
  goto l1821
  goto l1822
  goto l1823
  goto l1824
  goto l1825
  goto l1826
  goto l1827
  goto l1828
  goto l1829
  goto l1830
  goto l1831
  goto l1832
  goto l1833
  goto l1834
  goto l1835
  goto l1836
  goto l1837
  goto l1838
  goto l1839
  goto l1840
  goto l1841
  goto l1842
  goto l1843
  goto l1844
  goto l1845
  goto l1846
  goto l1847
  goto l1848
  goto l1849
  goto l1850
  goto l1851
  goto l1852
  goto l1853
  goto l1854
  goto l1855
  goto l1856
  goto l1857
  goto l1858
  goto l1859
  goto l1860
  goto l1861
  goto l1862
  goto l1863
  goto l1864
  goto l1865
  goto l1866
  goto l1867
  goto l1868
  goto l1869
  goto l1870
  goto l1871
  goto l1872
  goto l1873
  goto l1874
  goto l1875
  goto l1876
  goto l1877
  goto l1878
  goto l1879
  goto l1880
  goto l1881
  goto l1882
  goto l1883
  goto l1884
  goto l1885
  goto l1886
  goto l1887
  goto l1888
  goto l1889
  goto l1890
  goto l1891
  goto l1892
  goto l1893
  goto l1894
  goto l1895
  goto l1896
  goto l1897
  goto l1898
  goto l1899
  goto l1900
  goto l1901
  goto l1902
  goto l1903
  goto l1904
  goto l1905
  goto l1906
  goto l1907
  goto l1908
  goto l1909
  goto l1910
  goto l1911
  goto l1912
  goto l1913
  goto l1914
  goto l1915
  goto l1916
  goto l1917
  goto l1918
  goto l1919
  goto l1920
  goto l1921
  goto l1922
  goto l1923
  goto l1924
  goto l1925
  goto l1926
  goto l1927
  goto l1928
  goto l1929
  goto l1930
  goto l1931
  goto l1932
  goto l1933
  goto l1934
  goto l1935
  goto l1936
  goto l1937
  goto l1938
  goto l1939
  goto l1940
  goto l1941
  goto l1942
  goto l1943
  goto l1944
  goto l1945
  goto l1946
  goto l1947
  goto l1948
  goto l1949
  goto l1950
  goto l1951
  goto l1952
  goto l1953
  goto l1954
  goto l1955
  goto l1956
  goto l1957
  goto l1958
  goto l1959
  goto l1960
  goto l1961
  goto l1962
  goto l1963
  goto l1964
  goto l1965
  goto l1966
  goto l1967
  goto l1968
  goto l1969
  goto l1970
  goto l1971
  goto l1972
  goto l1973
  goto l1974
  goto l1975
  goto l1976
  goto l1977
  goto l1978
  goto l1979
  goto l1980
  goto l1981
  goto l1982
  goto l1983
  goto l1984
  goto l1985
  goto l1986
  goto l1987
  goto l1988
  goto l1989
  goto l1990
  goto l1991
  goto l1992
  goto l1993
  goto l1994
  goto l1995
  goto l1996
  goto l1997
  goto l1998
  goto l1999
  goto l2000
  goto l2001
  goto l2002
  goto l2003
  goto l2004
  goto l2005
  goto l2006
  goto l2007
  goto l2008
  goto l2009
  goto l2010
  goto l2011
  goto l2012
  goto l2013
  goto l2014
  goto l2015
  goto l2016
  goto l2017
  goto l2018
  goto l2019
  goto l2020
  goto l2021
  goto l2022
  goto l2023
  goto l2024
  goto l2025
  goto l2026
  goto l2027
  goto l2028
  goto l2029
  goto l2030
  goto l2031
  goto l2032
  goto l2033
  goto l2034
  goto l2035
  goto l2036
  goto l2037
  goto l2038
  goto l2039
  goto l2040
  goto l2041
  goto l2042
  goto l2043
  goto l2044
  goto l2045
  goto l2046
  goto l2047
  goto l2048
  goto l2049
  goto l2050
  goto l2051
  goto l2052
  goto l2053
  goto l2054
  goto l2055
  goto l2056
  goto l2057
  goto l2058
  goto l2059
  goto l2060
  goto l2061
  goto l2062
  goto l2063
  goto l2064
  goto l2065
  goto l2066
  goto l2067
  goto l2068
  goto l2069
  goto l2070
  goto l2071
  goto l2072
  goto l2073
  goto l2074
  goto l2075
  goto l2076
  goto l2077
  goto l2078
  goto l2079
  goto l2080
  goto l2081
  goto l2082
  goto l2083
  goto l2084
  goto l2085
  goto l2086
  goto l2087
  goto l2088
  goto l2089
  goto l2090
  goto l2091
  goto l2092
  goto l2093
  goto l2094
  goto l2095
  goto l2096
  goto l2097
  goto l2098
  goto l2099
  goto l2100
  goto l2101
  goto l2102
  goto l2103
  goto l2104
  goto l2105
  goto l2106
  goto l2107
  goto l2108
  goto l2109
  goto l2110
  goto l2111
  goto l2112
  goto l2113
  goto l2114
  goto l2115
  goto l2116
  goto l2117
  goto l2118
  goto l2119
  goto l2120
  goto l2121
  goto l2122
  goto l2123
  goto l2124
  goto l2125
  goto l2126
  goto l2127
  goto l2128
  goto l2129
  goto l2130
  goto l2131
  goto l2132
  goto l2133
  goto l2134
  goto l2135
  goto l2136
  goto l2137
  goto l2138
  goto l2139
  goto l2140
  goto l2141
  goto l2142
  goto l2143
  goto l2144
  goto l2145
  goto l2146
  goto l2147
  goto l2148
  goto l2149
  goto l2150
  goto l2151
  goto l2152
  goto l2153
  goto l2154
  goto l2155
  goto l2156
  goto l2157
  goto l2158
  goto l2159
  goto l2160
  goto l2161
  goto l2162
  goto l2163
  goto l2164
  goto l2165
  goto l2166
  goto l2167
  goto l2168
  goto l2169
  goto l2170
  goto l2171
  goto l2172
  goto l2173
  goto l2174
  goto l2175
  goto l2176
  goto l2177
  goto l2178
  goto l2179
  goto l2180
  goto l2181
  goto l2182
  goto l2183
  goto l2184
  goto l2185
  goto l2186
  goto l2187
  goto l2188
  goto l2189
  goto l2190
  goto l2191
  goto l2192
  goto l2193
  goto l2194
  goto l2195
  goto l2196
  goto l2197
  goto l2198
  goto l2199
  goto l2200
  goto l2201
  goto l2202
  goto l2203
  goto l2204
  goto l2205
  goto l2206
  goto l2207
  goto l2208
  goto l2209
  goto l2210
  goto l2211
  goto l2212
  goto l2213
  goto l2214
  goto l2215
  goto l2216
  goto l2217
  goto l2218
  goto l2219
  goto l2220
  goto l2221
  goto l2222
  goto l2223
  goto l2224
  goto l2225
  goto l2226
  goto l2227
  goto l2228
  goto l2229
  goto l2230
  goto l2231
  goto l2232
  goto l2233
  goto l2234
  goto l2235
  goto l2236
  goto l2237
  goto l2238
  goto l2239
  goto l2240
  goto l2241
  goto l2242
  goto l2243
  goto l2244
  goto l2245
  goto l2246
  goto l2247
  goto l2248
  goto l2249
  goto l2250
  goto l2251
  goto l2252
  goto l2253
  goto l2254
  goto l2255
  goto l2256
  goto l2257
  goto l2258
  goto l2259
  goto l2260
  goto l2261
  goto l2262
  goto l2263
  goto l2264
  goto l2265
  goto l2266
  goto l2267
  goto l2268
  goto l2269
  goto l2270
  goto l2271
  goto l2272
  goto l2273
  goto l2274
  goto l2275
  goto l2276
  goto l2277
  goto l2278
  goto l2279
  goto l2280
  goto l2281
  goto l2282
  goto l2283
  goto l2284
  goto l2285
  goto l2286
  goto l2287
  goto l2288
  goto l2289
  goto l2290
  goto l2291
  goto l2292
  goto l2293
  goto l2294
  goto l2295
  goto l2296
  goto l2297
  goto l2298
  goto l2299
  goto l2300
  goto l2301
  goto l2302
  goto l2303
  goto l2304
  goto l2305
  goto l2306
  goto l2307
  goto l2308
  goto l2309
  goto l2310
  goto l2311
  goto l2312
  goto l2313
  goto l2314
  goto l2315
  goto l2316
  goto l2317
  goto l2318
  goto l2319
  goto l2320
  goto l2321
  goto l2322
  goto l2323
  goto l2324
  goto l2325
  goto l2326
  goto l2327
  goto l2328
  goto l2329
  goto l2330
  goto l2331
  goto l2332
  goto l2333
  goto l2334
  goto l2335
  goto l2336
  goto l2337
  goto l2338
  goto l2339
  goto l2340
  goto l2341
  goto l2342
  goto l2343
  goto l2344
  goto l2345
  goto l2346
  goto l2347
  goto l2348
  goto l2349
  goto l2350
  goto l2351
  goto l2352
  goto l2353
  goto l2354
  goto l2355
  goto l2356
  goto l2357
  goto l2358
  goto l2359
  goto l2360
  goto l2361
  goto l2362
  goto l2363
  goto l2364
  goto l2365
  goto l2366
  goto l2367
  goto l2368
  goto l2369
  goto l2370
  goto l2371
  goto l2372
  goto l2373
  goto l2374
  goto l2375
  goto l2376
  goto l2377
  goto l2378
  goto l2379
  goto l2380
  goto l2381
  goto l2382
  goto l2383
  goto l2384
  goto l2385
  goto l2386
  goto l2387
  goto l2388
  goto l2389
  goto l2390
  goto l2391
  goto l2392
  goto l2393
  goto l2394
  goto l2395
  goto l2396
  goto l2397
  goto l2398
  goto l2399
  goto l2400
  goto l2401
  goto l2402
  goto l2403
  goto l2404
  goto l2405
  goto l2406
  goto l2407
  goto l2408
  goto l2409
  goto l2410
  goto l2411
  goto l2412
  goto l2413
  goto l2414
  goto l2415
  goto l2416
  goto l2417
  goto l2418
  goto l2419
  goto l2420
  goto l2421
  goto l2422
  goto l2423
  goto l2424
  goto l2425
  goto l2426
  goto l2427
  goto l2428
  goto l2429
  goto l2430
  goto l2431
  goto l2432
  goto l2433
  goto l2434
  goto l2435
  goto l2436
  goto l2437
  goto l2438
  goto l2439
  goto l2440
  goto l2441
  goto l2442
  goto l2443
  goto l2444
  goto l2445
  goto l2446
  goto l2447
  goto l2448
  goto l2449
  goto l2450
  goto l2451
  goto l2452
  goto l2453
  goto l2454
  goto l2455
  goto l2456
  goto l2457
  goto l2458
  goto l2459
  goto l2460
  goto l2461
  goto l2462
  goto l2463
  goto l2464
  goto l2465
  goto l2466
  goto l2467
  goto l2468
  goto l2469
  goto l2470
  goto l2471
  goto l2472
  goto l2473
  goto l2474
  goto l2475
  goto l2476
  goto l2477
  goto l2478
  goto l2479
  goto l2480
  goto l2481
  goto l2482
  goto l2483
  goto l2484
  goto l2485
  goto l2486
  goto l2487
  goto l2488
  goto l2489
  goto l2490
  goto l2491
  goto l2492
  goto l2493
  goto l2494
  goto l2495
  goto l2496
  goto l2497
  goto l2498
  goto l2499
  goto l2500
  goto l2501
  goto l2502
  goto l2503
  goto l2504
  goto l2505
  goto l2506
  goto l2507
  goto l2508
  goto l2509
  goto l2510
  goto l2511
  goto l2512
  goto l2513
  goto l2514
  goto l2515
  goto l2516
  goto l2517
  goto l2518
  goto l2519
  goto l2520
  goto l2521
  goto l2522
  goto l2523
  goto l2524
  goto l2525
  goto l2526
  goto l2527
  goto l2528
  goto l2529
  goto l2530
  goto l2531
  goto l2532
  goto l2533
  goto l2534
  goto l2535
  goto l2536
  goto l2537
  goto l2538
  goto l2539
  goto l2540
  goto l2541
  goto l2542
  goto l2543
  goto l2544
  goto l2545
  goto l2546
  goto l2547
  goto l2548
  goto l2549
  goto l2550
  goto l2551
  goto l2552
  goto l2553
  goto l2554
  goto l2555
  goto l2556
  goto l2557
  goto l2558
  goto l2559
  goto l2560
  goto l2561
  goto l2562
  goto l2563
  goto l2564
  goto l2565
  goto l2566
  goto l2567
  goto l2568
  goto l2569
  goto l2570
  goto l2571
  goto l2572
  goto l2573
  goto l2574
  goto l2575
  goto l2576
  goto l2577
  goto l2578
  goto l2579
  goto l2580
  goto l2581
  goto l2582
  goto l2583
  goto l2584
  goto l2585
  goto l2586
  goto l2587
  goto l2588
  goto l2589
  goto l2590
  goto l2591
  goto l2592
  goto l2593
  goto l2594
  goto l2595
  goto l2596
  goto l2597
  goto l2598
  goto l2599
  goto l2600
  goto l2601
  goto l2602
  goto l2603
  goto l2604
  goto l2605
  goto l2606
  goto l2607
  goto l2608
  goto l2609
  goto l2610
  goto l2611
  goto l2612
  goto l2613
  goto l2614
  goto l2615
  goto l2616
  goto l2617
  goto l2618
  goto l2619
  goto l2620
  goto l2621
  goto l2622
  goto l2623
  goto l2624
  goto l2625
  goto l2626
  goto l2627
  goto l2628
  goto l2629
  goto l2630
  goto l2631
  goto l2632
  goto l2633
  goto l2634
  goto l2635
  goto l2636
  goto l2637
  goto l2638
  goto l2639
  goto l2640
  goto l2641
  goto l2642
  goto l2643
  goto l2644
  goto l2645
  goto l2646
  goto l2647
  goto l2648
  goto l2649
  goto l2650
  goto l2651
  goto l2652
  goto l2653
  goto l2654
  goto l2655
  goto l2656
  goto l2657
  goto l2658
  goto l2659
  goto l2660
  goto l2661
  goto l2662
  goto l2663
  goto l2664
  goto l2665
  goto l2666
  goto l2667
  goto l2668
  goto l2669
  goto l2670
  goto l2671
  goto l2672
  goto l2673
  goto l2674
  goto l2675
  goto l2676
  goto l2677
  goto l2678
  goto l2679
  goto l2680
  goto l2681
  goto l2682
  goto l2683
  goto l2684
  goto l2685
  goto l2686
  goto l2687
  goto l2688
  goto l2689
  goto l2690
  goto l2691
  goto l2692
  goto l2693
  goto l2694
  goto l2695
  goto l2696
  goto l2697
  goto l2698
  goto l2699
  goto l2700
  goto l2701
  goto l2702
  goto l2703
  goto l2704
  goto l2705
  goto l2706
  goto l2707
  goto l2708
  goto l2709
  goto l2710
  goto l2711
  goto l2712
  goto l2713
  goto l2714
  goto l2715
  goto l2716
  goto l2717
  goto l2718
  goto l2719
  goto l2720
  goto l2721
  goto l2722
  goto l2723
  goto l2724
  goto l2725
  goto l2726
  goto l2727
  goto l2728
  goto l2729
  goto l2730
  goto l2731
  goto l2732
  goto l2733
  goto l2734
  goto l2735
  goto l2736
  goto l2737
  goto l2738
  goto l2739
  goto l2740
  goto l2741
  goto l2742
  goto l2743
  goto l2744
  goto l2745
  goto l2746
  goto l2747
  goto l2748
  goto l2749
  goto l2750
  goto l2751
  goto l2752
  goto l2753
  goto l2754
  goto l2755
  goto l2756
  goto l2757
  goto l2758
  goto l2759
  goto l2760
  goto l2761
  goto l2762
  goto l2763
  goto l2764
  goto l2765
  goto l2766
  goto l2767
  goto l2768
  goto l2769
  goto l2770
  goto l2771
  goto l2772
  goto l2773
  goto l2774
  goto l2775
  goto l2776
  goto l2777
  goto l2778
  goto l2779
  goto l2780
  goto l2781
  goto l2782
  goto l2783
  goto l2784
  goto l2785
  goto l2786
  goto l2787
  goto l2788
  goto l2789
  goto l2790
  goto l2791
  goto l2792
  goto l2793
  goto l2794
  goto l2795
  goto l2796
  goto l2797
  goto l2798
  goto l2799
  goto l2800
  goto l2801
  goto l2802
  goto l2803
  goto l2804
  goto l2805
  goto l2806
  goto l2807
  goto l2808
  goto l2809
  goto l2810
  goto l2811
  goto l2812
  goto l2813
  goto l2814
  goto l2815
  goto l2816
  goto l2817
  goto l2818
  goto l2819
  goto l2820
  goto l2821
  goto l2822
  goto l2823
  goto l2824
  goto l2825
  goto l2826
  goto l2827
  goto l2828
  goto l2829
  goto l2830
  goto l2831
  goto l2832
  goto l2833
  goto l2834
  goto l2835
  goto l2836
  goto l2837
  goto l2838
  goto l2839
  goto l2840
  goto l2841
  goto l2842
  goto l2843
  goto l2844
  goto l2845
  goto l2846
  goto l2847
  goto l2848
  goto l2849
  goto l2850
  goto l2851
  goto l2852
  goto l2853
  goto l2854
  goto l2855
  goto l2856
  goto l2857
  goto l2858
  goto l2859
  goto l2860
  goto l2861
  goto l2862
  goto l2863
  goto l2864
  goto l2865
  goto l2866
  goto l2867
  goto l2868
  goto l2869
  goto l2870
  goto l2871
  goto l2872
  goto l2873
  goto l2874
  goto l2875
  goto l2876
  goto l2877
  goto l2878
  goto l2879
  goto l2880
  goto l2881
  goto l2882
  goto l2883
  goto l2884
  goto l2885
  goto l2886
  goto l2887
  goto l2888
  goto l2889
  goto l2890
  goto l2891
  goto l2892
  goto l2893
  goto l2894
  goto l2895
  goto l2896
  goto l2897
  goto l2898
  goto l2899
  goto l2900
  goto l2901
  goto l2902
  goto l2903
  goto l2904
  goto l2905
  goto l2906
  goto l2907
  goto l2908
  goto l2909
  goto l2910
  goto l2911
  goto l2912
  goto l2913
  goto l2914
  goto l2915
  goto l2916
  goto l2917
  goto l2918
  goto l2919
  goto l2920
  goto l2921
  goto l2922
  goto l2923
  goto l2924
  goto l2925
  goto l2926
  goto l2927
  goto l2928
  goto l2929
  goto l2930
  goto l2931
  goto l2932
  goto l2933
  goto l2934
  goto l2935
  goto l2936
  goto l2937
  goto l2938
  goto l2939
  goto l2940
  goto l2941
  goto l2942
  goto l2943
  goto l2944
  goto l2945
  goto l2946
  goto l2947
  goto l2948
  goto l2949
  goto l2950
  goto l2951
  goto l2952
  goto l2953
  goto l2954
  goto l2955
  goto l2956
  goto l2957
  goto l2958
  goto l2959
  goto l2960
  goto l2961
  goto l2962
  goto l2963
  goto l2964
  goto l2965
  goto l2966
  goto l2967
  goto l2968
  goto l2969
  goto l2970
  goto l2971
  goto l2972
  goto l2973
  goto l2974
  goto l2975
  goto l2976
  goto l2977
  goto l2978
  goto l2979
  goto l2980
  goto l2981
  goto l2982
  goto l2983
  goto l2984
  goto l2985
  goto l2986
  goto l2987
  goto l2988
  goto l2989
  goto l2990
  goto l2991
  goto l2992
  goto l2993
  goto l2994
  goto l2995
  goto l2996
  goto l2997
  goto l2998
  goto l2999
  goto l3000
  goto l3001
  goto l3002
  goto l3003
  goto l3004
  goto l3005
  goto l3006
  goto l3007
  goto l3008
  goto l3009
  goto l3010
  goto l3011
  goto l3012
  goto l3013
  goto l3014
  goto l3015
  goto l3016
  goto l3017
  goto l3018
  goto l3019
  goto l3020
  goto l3021
  goto l3022
  goto l3023
  goto l3024
  goto l3025
  goto l3026
  goto l3027
  goto l3028
  goto l3029
  goto l3030
  goto l3031
  goto l3032
  goto l3033
  goto l3034
  goto l3035
  goto l3036
  goto l3037
  goto l3038
  goto l3039
  goto l3040
  goto l3041
  goto l3042
  goto l3043
  goto l3044
  goto l3045
  goto l3046
  goto l3047
  goto l3048
  goto l3049
  goto l3050
  goto l3051
  goto l3052
  goto l3053
  goto l3054
  goto l3055
  goto l3056
  goto l3057
  goto l3058
  goto l3059
  goto l3060
  goto l3061
  goto l3062
  goto l3063
  goto l3064
  goto l3065
  goto l3066
  goto l3067
  goto l3068
  goto l3069
  goto l3070
  goto l3071
  goto l3072
  goto l3073
  goto l3074
  goto l3075
  goto l3076
  goto l3077
  goto l3078
  goto l3079
  goto l3080
  goto l3081
  goto l3082
  goto l3083
  goto l3084
  goto l3085
  goto l3086
  goto l3087
  goto l3088
  goto l3089
  goto l3090
  goto l3091
  goto l3092
  goto l3093
  goto l3094
  goto l3095
  goto l3096
  goto l3097
  goto l3098
  goto l3099
  goto l3100
  goto l3101
  goto l3102
  goto l3103
  goto l3104
  goto l3105
  goto l3106
  goto l3107
  goto l3108
  goto l3109
  goto l3110
  goto l3111
  goto l3112
  goto l3113
  goto l3114
  goto l3115
  goto l3116
  goto l3117
  goto l3118
  goto l3119
  goto l3120
  goto l3121
  goto l3122
  goto l3123
  goto l3124
  goto l3125
  goto l3126
  goto l3127
  goto l3128
  goto l3129
  goto l3130
  goto l3131
  goto l3132
  goto l3133
  goto l3134
  goto l3135
  goto l3136
  goto l3137
  goto l3138
  goto l3139
  goto l3140
  goto l3141
  goto l3142
  goto l3143
  goto l3144
  goto l3145
  goto l3146
  goto l3147
  goto l3148
  goto l3149
  goto l3150
  goto l3151
  goto l3152
  goto l3153
  goto l3154
  goto l3155
  goto l3156
  goto l3157
  goto l3158
  goto l3159
  goto l3160
  goto l3161
  goto l3162
  goto l3163
  goto l3164
  goto l3165
  goto l3166
  goto l3167
  goto l3168
  goto l3169
  goto l3170
  goto l3171
  goto l3172
  goto l3173
  goto l3174
  goto l3175
  goto l3176
  goto l3177
  goto l3178
  goto l3179
  goto l3180
  goto l3181
  goto l3182
  goto l3183
  goto l3184
  goto l3185
  goto l3186
  goto l3187
  goto l3188
  goto l3189
  goto l3190
  goto l3191
  goto l3192
  goto l3193
  goto l3194
  goto l3195
  goto l3196
  goto l3197
  goto l3198
  goto l3199
  goto l3200
  goto l3201
  goto l3202
  goto l3203
  goto l3204
  goto l3205
  goto l3206
  goto l3207
  goto l3208
  goto l3209
  goto l3210
  goto l3211
  goto l3212
  goto l3213
  goto l3214
  goto l3215
  goto l3216
  goto l3217
  goto l3218
  goto l3219
  goto l3220
  goto l3221
  goto l3222
  goto l3223
  goto l3224
  goto l3225
  goto l3226
  goto l3227
  goto l3228
  goto l3229
  goto l3230
  goto l3231
  goto l3232
  goto l3233
  goto l3234
  goto l3235
  goto l3236
  goto l3237
  goto l3238
  goto l3239
  goto l3240
  goto l3241
  goto l3242
  goto l3243
  goto l3244
  goto l3245
  goto l3246
  goto l3247
  goto l3248
  goto l3249
  goto l3250
  goto l3251
  goto l3252
  goto l3253
  goto l3254
  goto l3255
  goto l3256
  goto l3257
  goto l3258
  goto l3259
  goto l3260
  goto l3261
  goto l3262
  goto l3263
  goto l3264
  goto l3265
  goto l3266
  goto l3267
  goto l3268
  goto l3269
  goto l3270
  goto l3271
  goto l3272
  goto l3273
  goto l3274
  goto l3275
  goto l3276
  goto l3277
  goto l3278
  goto l3279
  goto l3280
  goto l3281
  goto l3282
  goto l3283
  goto l3284
  goto l3285
  goto l3286
  goto l3287
  goto l3288
  goto l3289
  goto l3290
  goto l3291
  goto l3292
  goto l3293
  goto l3294
  goto l3295
  goto l3296
  goto l3297
  goto l3298
  goto l3299
  goto l3300
  goto l3301
  goto l3302
  goto l3303
  goto l3304
  goto l3305
  goto l3306
  goto l3307
  goto l3308
  goto l3309
  goto l3310
  goto l3311
  goto l3312
  goto l3313
  goto l3314
  goto l3315
  goto l3316
  goto l3317
  goto l3318
  goto l3319
  goto l3320
  goto l3321
  goto l3322
  goto l3323
  goto l3324
  goto l3325
  goto l3326
  goto l3327
  goto l3328
  goto l3329
  goto l3330
  goto l3331
  goto l3332
  goto l3333
  goto l3334
  goto l3335
  goto l3336
  goto l3337
  goto l3338
  goto l3339
  goto l3340
  goto l3341
  goto l3342
  goto l3343
  goto l3344
  goto l3345
  goto l3346
  goto l3347
  goto l3348
  goto l3349
  goto l3350
  goto l3351
  goto l3352
  goto l3353
  goto l3354
  goto l3355
  goto l3356
  goto l3357
  goto l3358
  goto l3359
  goto l3360
  goto l3361
  goto l3362
  goto l3363
  goto l3364
  goto l3365
  goto l3366
  goto l3367
  goto l3368
  goto l3369
  goto l3370
  goto l3371
  goto l3372
  goto l3373
  goto l3374
  goto l3375
  goto l3376
  goto l3377
  goto l3378
  goto l3379
  goto l3380
  goto l3381
  goto l3382
  goto l3383
  goto l3384
  goto l3385
  goto l3386
  goto l3387
  goto l3388
  goto l3389
  goto l3390
  goto l3391
  goto l3392
  goto l3393
  goto l3394
  goto l3395
  goto l3396
  goto l3397
  goto l3398
  goto l3399
  goto l3400
  goto l3401
  goto l3402
  goto l3403
  goto l3404
  goto l3405
  goto l3406
  goto l3407
  goto l3408
  goto l3409
  goto l3410
  goto l3411
  goto l3412
  goto l3413
  goto l3414
  goto l3415
  goto l3416
  goto l3417
  goto l3418
  goto l3419
  goto l3420
  goto l3421
  goto l3422
  goto l3423
  goto l3424
  goto l3425
  goto l3426
  goto l3427
  goto l3428
  goto l3429
  goto l3430
  goto l3431
  goto l3432
  goto l3433
  goto l3434
  goto l3435
  goto l3436
  goto l3437
  goto l3438
  goto l3439
  goto l3440
  goto l3441
  goto l3442
  goto l3443
  goto l3444
  goto l3445
  goto l3446
  goto l3447
  goto l3448
  goto l3449
  goto l3450
  goto l3451
  goto l3452
  goto l3453
  goto l3454
  goto l3455
  goto l3456
  goto l3457
  goto l3458
  goto l3459
  goto l3460
  goto l3461
  goto l3462
  goto l3463
  goto l3464
  goto l3465
  goto l3466
  goto l3467
  goto l3468
  goto l3469
  goto l3470
  goto l3471
  goto l3472
  goto l3473
  goto l3474
  goto l3475
  goto l3476
  goto l3477
  goto l3478
  goto l3479
  goto l3480
  goto l3481
  goto l3482
  goto l3483
  goto l3484
  goto l3485
  goto l3486
  goto l3487
  goto l3488
  goto l3489
  goto l3490
  goto l3491
  goto l3492
  goto l3493
  goto l3494
  goto l3495
  goto l3496
  goto l3497
  goto l3498
  goto l3499
  goto l3500
  goto l3501
  goto l3502
  goto l3503
  goto l3504
  goto l3505
  goto l3506
  goto l3507
  goto l3508
  goto l3509
  goto l3510
  goto l3511
  goto l3512
  goto l3513
  goto l3514
  goto l3515
  goto l3516
  goto l3517
  goto l3518
  goto l3519
  goto l3520
  goto l3521
  goto l3522
  goto l3523
  goto l3524
  goto l3525
  goto l3526
  goto l3527
  goto l3528
  goto l3529
  goto l3530
  goto l3531
  goto l3532
  goto l3533
  goto l3534
  goto l3535
  goto l3536
  goto l3537
  goto l3538
  goto l3539
  goto l3540
  goto l3541
  goto l3542
  goto l3543
  goto l3544
  goto l3545
  goto l3546
  goto l3547
  goto l3548
  goto l3549
  goto l3550
  goto l3551
  goto l3552
  goto l3553
  goto l3554
  goto l3555
  goto l3556
  goto l3557
  goto l3558
  goto l3559
  goto l3560
  goto l3561
  goto l3562
  goto l3563
  goto l3564
  goto l3565
  goto l3566
  goto l3567
  goto l3568
  goto l3569
  goto l3570
  goto l3571
  goto l3572
  goto l3573
  goto l3574
  goto l3575
  goto l3576
  goto l3577
  goto l3578
  goto l3579
  goto l3580
  goto l3581
  goto l3582
  goto l3583
  goto l3584
  goto l3585
  goto l3586
  goto l3587
  goto l3588
  goto l3589
  goto l3590
  goto l3591
  goto l3592
  goto l3593
  goto l3594
  goto l3595
  goto l3596
  goto l3597
  goto l3598
  goto l3599
  goto l3600
  goto l3601
  goto l3602
  goto l3603
  goto l3604
  goto l3605
  goto l3606
  goto l3607
  goto l3608
  goto l3609
  goto l3610
  goto l3611
  goto l3612
  goto l3613
  goto l3614
  goto l3615
  goto l3616
  goto l3617
  goto l3618
  goto l3619
  goto l3620
  goto l3621
  goto l3622
  goto l3623
  goto l3624
  goto l3625
  goto l3626
  goto l3627
  goto l3628
  goto l3629
  goto l3630
  goto l3631
  goto l3632
  goto l3633
  goto l3634
  goto l3635
  goto l3636
  goto l3637
  goto l3638
  goto l3639
  goto l3640
  goto l3641
  goto l3642
  goto l3643
  goto l3644
  goto l3645
  goto l3646
  goto l3647
  goto l3648
  goto l3649
  goto l3650
  goto l3651
  goto l3652
  goto l3653
  goto l3654
  goto l3655
  goto l3656
  goto l3657
  goto l3658
  goto l3659
  goto l3660
  goto l3661
  goto l3662
  goto l3663
  goto l3664
  goto l3665
  goto l3666
  goto l3667
  goto l3668
  goto l3669
  goto l3670
  goto l3671
  goto l3672
  goto l3673
  goto l3674
  goto l3675
  goto l3676
  goto l3677
  goto l3678
  goto l3679
  goto l3680
  goto l3681
  goto l3682
  goto l3683
  goto l3684
  goto l3685
  goto l3686
  goto l3687
  goto l3688
  goto l3689
  goto l3690
  goto l3691
  goto l3692
  goto l3693
  goto l3694
  goto l3695
  goto l3696
  goto l3697
  goto l3698
  goto l3699
  goto l3700
  goto l3701
  goto l3702
  goto l3703
  goto l3704
  goto l3705
  goto l3706
  goto l3707
  goto l3708
  goto l3709
  goto l3710
  goto l3711
  goto l3712
  goto l3713
  goto l3714
  goto l3715
  goto l3716
  goto l3717
  goto l3718
  goto l3719
  goto l3720
  goto l3721
  goto l3722
  goto l3723
  goto l3724
  goto l3725
  goto l3726
  goto l3727
  goto l3728
  goto l3729
  goto l3730
  goto l3731
  goto l3732
  goto l3733
  goto l3734
  goto l3735
  goto l3736
  goto l3737
  goto l3738
  goto l3739
  goto l3740
  goto l3741
  goto l3742
  goto l3743
  goto l3744
  goto l3745
  goto l3746
  goto l3747
  goto l3748
  goto l3749
  goto l3750
  goto l3751
  goto l3752
  goto l3753
  goto l3754
  goto l3755
  goto l3756
  goto l3757
  goto l3758
  goto l3759
  goto l3760
  goto l3761
  goto l3762
  goto l3763
  goto l3764
  goto l3765
  goto l3766
  goto l3767
  goto l3768
  goto l3769
  goto l3770
  goto l3771
  goto l3772
  goto l3773
  goto l3774
  goto l3775
  goto l3776
  goto l3777
  goto l3778
  goto l3779
  goto l3780
  goto l3781
  goto l3782
  goto l3783
  goto l3784
  goto l3785
  goto l3786
  goto l3787
  goto l3788
  goto l3789
  goto l3790
  goto l3791
  goto l3792
  goto l3793
  goto l3794
  goto l3795
  goto l3796
  goto l3797
  goto l3798
  goto l3799
  goto l3800
  goto l3801
  goto l3802
  goto l3803
  goto l3804
  goto l3805
  goto l3806
  goto l3807
  goto l3808
  goto l3809
  goto l3810
  goto l3811
  goto l3812
  goto l3813
  goto l3814
  goto l3815
  goto l3816
  goto l3817
  goto l3818
  goto l3819
  goto l3820
  goto l3821
  goto l3822
  goto l3823
  goto l3824
  goto l3825
  goto l3826
  goto l3827
  goto l3828
  goto l3829
  goto l3830
  goto l3831
  goto l3832
  goto l3833
  goto l3834
  goto l3835
  goto l3836
  goto l3837
  goto l3838
  goto l3839
  goto l3840
  goto l3841
  goto l3842
  goto l3843
  goto l3844
  goto l3845
  goto l3846
  goto l3847
  goto l3848
  goto l3849
  goto l3850
  goto l3851
  goto l3852
  goto l3853
  goto l3854
  goto l3855
  goto l3856
  goto l3857
  goto l3858
  goto l3859
  goto l3860
  goto l3861
  goto l3862
  goto l3863
  goto l3864
  goto l3865
  goto l3866
  goto l3867
  goto l3868
  goto l3869
  goto l3870
  goto l3871
  goto l3872
  goto l3873
  goto l3874
  goto l3875
  goto l3876
  goto l3877
  goto l3878
  goto l3879
  goto l3880
  goto l3881
  goto l3882
  goto l3883
  goto l3884
  goto l3885
  goto l3886
  goto l3887
  goto l3888
  goto l3889
  goto l3890
  goto l3891
  goto l3892
  goto l3893
  goto l3894
  goto l3895
  goto l3896
  goto l3897
  goto l3898
  goto l3899
  goto l3900
  goto l3901
  goto l3902
  goto l3903
  goto l3904
  goto l3905
  goto l3906
  goto l3907
  goto l3908
  goto l3909
  goto l3910
  goto l3911
  goto l3912
  goto l3913
  goto l3914
  goto l3915
  goto l3916
  goto l3917
  goto l3918
  goto l3919
  goto l3920
  goto l3921
  goto l3922
  goto l3923
  goto l3924
  goto l3925
  goto l3926
  goto l3927
  goto l3928
  goto l3929
  goto l3930
  goto l3931
  goto l3932
  goto l3933
  goto l3934
  goto l3935
  goto l3936
  goto l3937
  goto l3938
  goto l3939
  goto l3940
  goto l3941
  goto l3942
  goto l3943
  goto l3944
  goto l3945
  goto l3946
  goto l3947
  goto l3948
  goto l3949
  goto l3950
  goto l3951
  goto l3952
  goto l3953
  goto l3954
  goto l3955
  goto l3956
  goto l3957
  goto l3958
  goto l3959
  goto l3960
  goto l3961
  goto l3962
  goto l3963
  goto l3964
  goto l3965
  goto l3966
  goto l3967
  goto l3968
  goto l3969
  goto l3970
  goto l3971
  goto l3972
  goto l3973
  goto l3974
  goto l3975
  goto l3976
  goto l3977
  goto l3978
  goto l3979
  goto l3980
  goto l3981
  goto l3982
  goto l3983
  goto l3984
  goto l3985
  goto l3986
  goto l3987
  goto l3988
  goto l3989
  goto l3990
  goto l3991
  goto l3992
  goto l3993
  goto l3994
  goto l3995
  goto l3996
  goto l3997
  goto l3998
  goto l3999
  goto l4000
  goto l4001
  goto l4002
  goto l4003
  goto l4004
  goto l4005
  goto l4006
  goto l4007
  goto l4008
  goto l4009
  goto l4010
  goto l4011
  goto l4012
  goto l4013
  goto l4014
  goto l4015
  goto l4016
  goto l4017
  goto l4018
  goto l4019
  goto l4020
  goto l4021
  goto l4022
  goto l4023
  goto l4024
  goto l4025
  goto l4026
  goto l4027
  goto l4028
  goto l4029
  goto l4030
  goto l4031
  goto l4032
  goto l4033
  goto l4034
  goto l4035
  goto l4036
  goto l4037
  goto l4038
  goto l4039
  goto l4040
  goto l4041
  goto l4042
  goto l4043
  goto l4044
  goto l4045
  goto l4046
  goto l4047
  goto l4048
  goto l4049
  goto l4050
  goto l4051
  goto l4052
  goto l4053
  goto l4054
  goto l4055
  goto l4056
  goto l4057
  goto l4058
  goto l4059
  goto l4060
  goto l4061
  goto l4062
  goto l4063
  goto l4064
  goto l4065
  goto l4066
  goto l4067
  goto l4068
  goto l4069
  goto l4070
  goto l4071
  goto l4072
  goto l4073
  goto l4074
  goto l4075
  goto l4076
  goto l4077
  goto l4078
  goto l4079
  goto l4080
  goto l4081
  goto l4082
  goto l4083
  goto l4084
  goto l4085
  goto l4086
  goto l4087
  goto l4088
  goto l4089
  goto l4090
  goto l4091
  goto l4092
  goto l4093
  goto l4094
  goto l4095
  goto l4096
  goto l4097
  goto l4098
  goto l4099
  goto l4100
  goto l4101
  goto l4102
  goto l4103
  goto l4104
  goto l4105
  goto l4106
  goto l4107
  goto l4108
  goto l4109
  goto l4110
  goto l4111
  goto l4112
  goto l4113
  goto l4114
  goto l4115
  goto l4116
  goto l4117
  goto l4118
  goto l4119
  goto l4120
  goto l4121
  goto l4122
  goto l4123
  goto l4124
  goto l4125
  goto l4126
  goto l4127
  goto l4128
  goto l4129
  goto l4130
  goto l4131
  goto l4132
  goto l4133
  goto l4134
  goto l4135
  goto l4136
  goto l4137
  goto l4138
  goto l4139
  goto l4140
  goto l4141
  goto l4142
  goto l4143
  goto l4144
  goto l4145
  goto l4146
  goto l4147
  goto l4148
  goto l4149
  goto l4150
  goto l4151
  goto l4152
  goto l4153
  goto l4154
  goto l4155
  goto l4156
  goto l4157
  goto l4158
  goto l4159
  goto l4160
  goto l4161
  goto l4162
  goto l4163
  goto l4164
  goto l4165
  goto l4166
  goto l4167
  goto l4168
  goto l4169
  goto l4170
  goto l4171
  goto l4172
  goto l4173
  goto l4174
  goto l4175
  goto l4176
  goto l4177
  goto l4178
  goto l4179
  goto l4180
  goto l4181
  goto l4182
  goto l4183
  goto l4184
  goto l4185
  goto l4186
  goto l4187
  goto l4188
  goto l4189
  goto l4190
  goto l4191
  goto l4192
  goto l4193
  goto l4194
  goto l4195
  goto l4196
  goto l4197
  goto l4198
  goto l4199
  ::l1:: do end
  ::l2:: do end
  ::l3:: do end
  ::l4:: do end
  ::l5:: do end
  ::l6:: do end
  ::l7:: do end
  ::l8:: do end
  ::l9:: do end
  ::l10:: do end
  ::l11:: do end
  ::l12:: do end
  ::l13:: do end
  ::l14:: do end
  ::l15:: do end
  ::l16:: do end
  ::l17:: do end
  ::l18:: do end
  ::l19:: do end
  ::l20:: do end
  ::l21:: do end
  ::l22:: do end
  ::l23:: do end
  ::l24:: do end
  ::l25:: do end
  ::l26:: do end
  ::l27:: do end
  ::l28:: do end
  ::l29:: do end
  ::l30:: do end
  ::l31:: do end
  ::l32:: do end
  ::l33:: do end
  ::l34:: do end
  ::l35:: do end
  ::l36:: do end
  ::l37:: do end
  ::l38:: do end
  ::l39:: do end
  ::l40:: do end
  ::l41:: do end
  ::l42:: do end
  ::l43:: do end
  ::l44:: do end
  ::l45:: do end
  ::l46:: do end
  ::l47:: do end
  ::l48:: do end
  ::l49:: do end
  ::l50:: do end
  ::l51:: do end
  ::l52:: do end
  ::l53:: do end
  ::l54:: do end
  ::l55:: do end
  ::l56:: do end
  ::l57:: do end
  ::l58:: do end
  ::l59:: do end
  ::l60:: do end
  ::l61:: do end
  ::l62:: do end
  ::l63:: do end
  ::l64:: do end
  ::l65:: do end
  ::l66:: do end
  ::l67:: do end
  ::l68:: do end
  ::l69:: do end
  ::l70:: do end
  ::l71:: do end
  ::l72:: do end
  ::l73:: do end
  ::l74:: do end
  ::l75:: do end
  ::l76:: do end
  ::l77:: do end
  ::l78:: do end
  ::l79:: do end
  ::l80:: do end
  ::l81:: do end
  ::l82:: do end
  ::l83:: do end
  ::l84:: do end
  ::l85:: do end
  ::l86:: do end
  ::l87:: do end
  ::l88:: do end
  ::l89:: do end
  ::l90:: do end
  ::l91:: do end
  ::l92:: do end
  ::l93:: do end
  ::l94:: do end
  ::l95:: do end
  ::l96:: do end
  ::l97:: do end
  ::l98:: do end
  ::l99:: do end
  ::l100:: do end
  ::l101:: do end
  ::l102:: do end
  ::l103:: do end
  ::l104:: do end
  ::l105:: do end
  ::l106:: do end
  ::l107:: do end
  ::l108:: do end
  ::l109:: do end
  ::l110:: do end
  ::l111:: do end
  ::l112:: do end
  ::l113:: do end
  ::l114:: do end
  ::l115:: do end
  ::l116:: do end
  ::l117:: do end
  ::l118:: do end
  ::l119:: do end
  ::l120:: do end
  ::l121:: do end
  ::l122:: do end
  ::l123:: do end
  ::l124:: do end
  ::l125:: do end
  ::l126:: do end
  ::l127:: do end
  ::l128:: do end
  ::l129:: do end
  ::l130:: do end
  ::l131:: do end
  ::l132:: do end
  ::l133:: do end
  ::l134:: do end
  ::l135:: do end
  ::l136:: do end
  ::l137:: do end
  ::l138:: do end
  ::l139:: do end
  ::l140:: do end
  ::l141:: do end
  ::l142:: do end
  ::l143:: do end
  ::l144:: do end
  ::l145:: do end
  ::l146:: do end
  ::l147:: do end
  ::l148:: do end
  ::l149:: do end
  ::l150:: do end
  ::l151:: do end
  ::l152:: do end
  ::l153:: do end
  ::l154:: do end
  ::l155:: do end
  ::l156:: do end
  ::l157:: do end
  ::l158:: do end
  ::l159:: do end
  ::l160:: do end
  ::l161:: do end
  ::l162:: do end
  ::l163:: do end
  ::l164:: do end
  ::l165:: do end
  ::l166:: do end
  ::l167:: do end
  ::l168:: do end
  ::l169:: do end
  ::l170:: do end
  ::l171:: do end
  ::l172:: do end
  ::l173:: do end
  ::l174:: do end
  ::l175:: do end
  ::l176:: do end
  ::l177:: do end
  ::l178:: do end
  ::l179:: do end
  ::l180:: do end
  ::l181:: do end
  ::l182:: do end
  ::l183:: do end
  ::l184:: do end
  ::l185:: do end
  ::l186:: do end
  ::l187:: do end
  ::l188:: do end
  ::l189:: do end
  ::l190:: do end
  ::l191:: do end
  ::l192:: do end
  ::l193:: do end
  ::l194:: do end
  ::l195:: do end
  ::l196:: do end
  ::l197:: do end
  ::l198:: do end
  ::l199:: do end
  ::l200:: do end
  ::l201:: do end
  ::l202:: do end
  ::l203:: do end
  ::l204:: do end
  ::l205:: do end
  ::l206:: do end
  ::l207:: do end
  ::l208:: do end
  ::l209:: do end
  ::l210:: do end
  ::l211:: do end
  ::l212:: do end
  ::l213:: do end
  ::l214:: do end
  ::l215:: do end
  ::l216:: do end
  ::l217:: do end
  ::l218:: do end
  ::l219:: do end
  ::l220:: do end
  ::l221:: do end
  ::l222:: do end
  ::l223:: do end
  ::l224:: do end
  ::l225:: do end
  ::l226:: do end
  ::l227:: do end
  ::l228:: do end
  ::l229:: do end
  ::l230:: do end
  ::l231:: do end
  ::l232:: do end
  ::l233:: do end
  ::l234:: do end
  ::l235:: do end
  ::l236:: do end
  ::l237:: do end
  ::l238:: do end
  ::l239:: do end
  ::l240:: do end
  ::l241:: do end
  ::l242:: do end
  ::l243:: do end
  ::l244:: do end
  ::l245:: do end
  ::l246:: do end
  ::l247:: do end
  ::l248:: do end
  ::l249:: do end
  ::l250:: do end
  ::l251:: do end
  ::l252:: do end
  ::l253:: do end
  ::l254:: do end
  ::l255:: do end
  ::l256:: do end
  ::l257:: do end
  ::l258:: do end
  ::l259:: do end
  ::l260:: do end
  ::l261:: do end
  ::l262:: do end
  ::l263:: do end
  ::l264:: do end
  ::l265:: do end
  ::l266:: do end
  ::l267:: do end
  ::l268:: do end
  ::l269:: do end
  ::l270:: do end
  ::l271:: do end
  ::l272:: do end
  ::l273:: do end
  ::l274:: do end
  ::l275:: do end
  ::l276:: do end
  ::l277:: do end
  ::l278:: do end
  ::l279:: do end
  ::l280:: do end
  ::l281:: do end
  ::l282:: do end
  ::l283:: do end
  ::l284:: do end
  ::l285:: do end
  ::l286:: do end
  ::l287:: do end
  ::l288:: do end
  ::l289:: do end
  ::l290:: do end
  ::l291:: do end
  ::l292:: do end
  ::l293:: do end
  ::l294:: do end
  ::l295:: do end
  ::l296:: do end
  ::l297:: do end
  ::l298:: do end
  ::l299:: do end
  ::l300:: do end
  ::l301:: do end
  ::l302:: do end
  ::l303:: do end
  ::l304:: do end
  ::l305:: do end
  ::l306:: do end
  ::l307:: do end
  ::l308:: do end
  ::l309:: do end
  ::l310:: do end
  ::l311:: do end
  ::l312:: do end
  ::l313:: do end
  ::l314:: do end
  ::l315:: do end
  ::l316:: do end
  ::l317:: do end
  ::l318:: do end
  ::l319:: do end
  ::l320:: do end
  ::l321:: do end
  ::l322:: do end
  ::l323:: do end
  ::l324:: do end
  ::l325:: do end
  ::l326:: do end
  ::l327:: do end
  ::l328:: do end
  ::l329:: do end
  ::l330:: do end
  ::l331:: do end
  ::l332:: do end
  ::l333:: do end
  ::l334:: do end
  ::l335:: do end
  ::l336:: do end
  ::l337:: do end
  ::l338:: do end
  ::l339:: do end
  ::l340:: do end
  ::l341:: do end
  ::l342:: do end
  ::l343:: do end
  ::l344:: do end
  ::l345:: do end
  ::l346:: do end
  ::l347:: do end
  ::l348:: do end
  ::l349:: do end
  ::l350:: do end
  ::l351:: do end
  ::l352:: do end
  ::l353:: do end
  ::l354:: do end
  ::l355:: do end
  ::l356:: do end
  ::l357:: do end
  ::l358:: do end
  ::l359:: do end
  ::l360:: do end
  ::l361:: do end
  ::l362:: do end
  ::l363:: do end
  ::l364:: do end
  ::l365:: do end
  ::l366:: do end
  ::l367:: do end
  ::l368:: do end
  ::l369:: do end
  ::l370:: do end
  ::l371:: do end
  ::l372:: do end
  ::l373:: do end
  ::l374:: do end
  ::l375:: do end
  ::l376:: do end
  ::l377:: do end
  ::l378:: do end
  ::l379:: do end
  ::l380:: do end
  ::l381:: do end
  ::l382:: do end
  ::l383:: do end
  ::l384:: do end
  ::l385:: do end
  ::l386:: do end
  ::l387:: do end
  ::l388:: do end
  ::l389:: do end
  ::l390:: do end
  ::l391:: do end
  ::l392:: do end
  ::l393:: do end
  ::l394:: do end
  ::l395:: do end
  ::l396:: do end
  ::l397:: do end
  ::l398:: do end
  ::l399:: do end
  ::l400:: do end
  ::l401:: do end
  ::l402:: do end
  ::l403:: do end
  ::l404:: do end
  ::l405:: do end
  ::l406:: do end
  ::l407:: do end
  ::l408:: do end
  ::l409:: do end
  ::l410:: do end
  ::l411:: do end
  ::l412:: do end
  ::l413:: do end
  ::l414:: do end
  ::l415:: do end
  ::l416:: do end
  ::l417:: do end
  ::l418:: do end
  ::l419:: do end
  ::l420:: do end
  ::l421:: do end
  ::l422:: do end
  ::l423:: do end
  ::l424:: do end
  ::l425:: do end
  ::l426:: do end
  ::l427:: do end
  ::l428:: do end
  ::l429:: do end
  ::l430:: do end
  ::l431:: do end
  ::l432:: do end
  ::l433:: do end
  ::l434:: do end
  ::l435:: do end
  ::l436:: do end
  ::l437:: do end
  ::l438:: do end
  ::l439:: do end
  ::l440:: do end
  ::l441:: do end
  ::l442:: do end
  ::l443:: do end
  ::l444:: do end
  ::l445:: do end
  ::l446:: do end
  ::l447:: do end
  ::l448:: do end
  ::l449:: do end
  ::l450:: do end
  ::l451:: do end
  ::l452:: do end
  ::l453:: do end
  ::l454:: do end
  ::l455:: do end
  ::l456:: do end
  ::l457:: do end
  ::l458:: do end
  ::l459:: do end
  ::l460:: do end
  ::l461:: do end
  ::l462:: do end
  ::l463:: do end
  ::l464:: do end
  ::l465:: do end
  ::l466:: do end
  ::l467:: do end
  ::l468:: do end
  ::l469:: do end
  ::l470:: do end
  ::l471:: do end
  ::l472:: do end
  ::l473:: do end
  ::l474:: do end
  ::l475:: do end
  ::l476:: do end
  ::l477:: do end
  ::l478:: do end
  ::l479:: do end
  ::l480:: do end
  ::l481:: do end
  ::l482:: do end
  ::l483:: do end
  ::l484:: do end
  ::l485:: do end
  ::l486:: do end
  ::l487:: do end
  ::l488:: do end
  ::l489:: do end
  ::l490:: do end
  ::l491:: do end
  ::l492:: do end
  ::l493:: do end
  ::l494:: do end
  ::l495:: do end
  ::l496:: do end
  ::l497:: do end
  ::l498:: do end
  ::l499:: do end
  ::l500:: do end
  ::l501:: do end
  ::l502:: do end
  ::l503:: do end
  ::l504:: do end
  ::l505:: do end
  ::l506:: do end
  ::l507:: do end
  ::l508:: do end
  ::l509:: do end
  ::l510:: do end
  ::l511:: do end
  ::l512:: do end
  ::l513:: do end
  ::l514:: do end
  ::l515:: do end
  ::l516:: do end
  ::l517:: do end
  ::l518:: do end
  ::l519:: do end
  ::l520:: do end
  ::l521:: do end
  ::l522:: do end
  ::l523:: do end
  ::l524:: do end
  ::l525:: do end
  ::l526:: do end
  ::l527:: do end
  ::l528:: do end
  ::l529:: do end
  ::l530:: do end
  ::l531:: do end
  ::l532:: do end
  ::l533:: do end
  ::l534:: do end
  ::l535:: do end
  ::l536:: do end
  ::l537:: do end
  ::l538:: do end
  ::l539:: do end
  ::l540:: do end
  ::l541:: do end
  ::l542:: do end
  ::l543:: do end
  ::l544:: do end
  ::l545:: do end
  ::l546:: do end
  ::l547:: do end
  ::l548:: do end
  ::l549:: do end
  ::l550:: do end
  ::l551:: do end
  ::l552:: do end
  ::l553:: do end
  ::l554:: do end
  ::l555:: do end
  ::l556:: do end
  ::l557:: do end
  ::l558:: do end
  ::l559:: do end
  ::l560:: do end
  ::l561:: do end
  ::l562:: do end
  ::l563:: do end
  ::l564:: do end
  ::l565:: do end
  ::l566:: do end
  ::l567:: do end
  ::l568:: do end
  ::l569:: do end
  ::l570:: do end
  ::l571:: do end
  ::l572:: do end
  ::l573:: do end
  ::l574:: do end
  ::l575:: do end
  ::l576:: do end
  ::l577:: do end
  ::l578:: do end
  ::l579:: do end
  ::l580:: do end
  ::l581:: do end
  ::l582:: do end
  ::l583:: do end
  ::l584:: do end
  ::l585:: do end
  ::l586:: do end
  ::l587:: do end
  ::l588:: do end
  ::l589:: do end
  ::l590:: do end
  ::l591:: do end
  ::l592:: do end
  ::l593:: do end
  ::l594:: do end
  ::l595:: do end
  ::l596:: do end
  ::l597:: do end
  ::l598:: do end
  ::l599:: do end
  ::l600:: do end
  ::l601:: do end
  ::l602:: do end
  ::l603:: do end
  ::l604:: do end
  ::l605:: do end
  ::l606:: do end
  ::l607:: do end
  ::l608:: do end
  ::l609:: do end
  ::l610:: do end
  ::l611:: do end
  ::l612:: do end
  ::l613:: do end
  ::l614:: do end
  ::l615:: do end
  ::l616:: do end
  ::l617:: do end
  ::l618:: do end
  ::l619:: do end
  ::l620:: do end
  ::l621:: do end
  ::l622:: do end
  ::l623:: do end
  ::l624:: do end
  ::l625:: do end
  ::l626:: do end
  ::l627:: do end
  ::l628:: do end
  ::l629:: do end
  ::l630:: do end
  ::l631:: do end
  ::l632:: do end
  ::l633:: do end
  ::l634:: do end
  ::l635:: do end
  ::l636:: do end
  ::l637:: do end
  ::l638:: do end
  ::l639:: do end
  ::l640:: do end
  ::l641:: do end
  ::l642:: do end
  ::l643:: do end
  ::l644:: do end
  ::l645:: do end
  ::l646:: do end
  ::l647:: do end
  ::l648:: do end
  ::l649:: do end
  ::l650:: do end
  ::l651:: do end
  ::l652:: do end
  ::l653:: do end
  ::l654:: do end
  ::l655:: do end
  ::l656:: do end
  ::l657:: do end
  ::l658:: do end
  ::l659:: do end
  ::l660:: do end
  ::l661:: do end
  ::l662:: do end
  ::l663:: do end
  ::l664:: do end
  ::l665:: do end
  ::l666:: do end
  ::l667:: do end
  ::l668:: do end
  ::l669:: do end
  ::l670:: do end
  ::l671:: do end
  ::l672:: do end
  ::l673:: do end
  ::l674:: do end
  ::l675:: do end
  ::l676:: do end
  ::l677:: do end
  ::l678:: do end
  ::l679:: do end
  ::l680:: do end
  ::l681:: do end
  ::l682:: do end
  ::l683:: do end
  ::l684:: do end
  ::l685:: do end
  ::l686:: do end
  ::l687:: do end
  ::l688:: do end
  ::l689:: do end
  ::l690:: do end
  ::l691:: do end
  ::l692:: do end
  ::l693:: do end
  ::l694:: do end
  ::l695:: do end
  ::l696:: do end
  ::l697:: do end
  ::l698:: do end
  ::l699:: do end
  ::l700:: do end
  ::l701:: do end
  ::l702:: do end
  ::l703:: do end
  ::l704:: do end
  ::l705:: do end
  ::l706:: do end
  ::l707:: do end
  ::l708:: do end
  ::l709:: do end
  ::l710:: do end
  ::l711:: do end
  ::l712:: do end
  ::l713:: do end
  ::l714:: do end
  ::l715:: do end
  ::l716:: do end
  ::l717:: do end
  ::l718:: do end
  ::l719:: do end
  ::l720:: do end
  ::l721:: do end
  ::l722:: do end
  ::l723:: do end
  ::l724:: do end
  ::l725:: do end
  ::l726:: do end
  ::l727:: do end
  ::l728:: do end
  ::l729:: do end
  ::l730:: do end
  ::l731:: do end
  ::l732:: do end
  ::l733:: do end
  ::l734:: do end
  ::l735:: do end
  ::l736:: do end
  ::l737:: do end
  ::l738:: do end
  ::l739:: do end
  ::l740:: do end
  ::l741:: do end
  ::l742:: do end
  ::l743:: do end
  ::l744:: do end
  ::l745:: do end
  ::l746:: do end
  ::l747:: do end
  ::l748:: do end
  ::l749:: do end
  ::l750:: do end
  ::l751:: do end
  ::l752:: do end
  ::l753:: do end
  ::l754:: do end
  ::l755:: do end
  ::l756:: do end
  ::l757:: do end
  ::l758:: do end
  ::l759:: do end
  ::l760:: do end
  ::l761:: do end
  ::l762:: do end
  ::l763:: do end
  ::l764:: do end
  ::l765:: do end
  ::l766:: do end
  ::l767:: do end
  ::l768:: do end
  ::l769:: do end
  ::l770:: do end
  ::l771:: do end
  ::l772:: do end
  ::l773:: do end
  ::l774:: do end
  ::l775:: do end
  ::l776:: do end
  ::l777:: do end
  ::l778:: do end
  ::l779:: do end
  ::l780:: do end
  ::l781:: do end
  ::l782:: do end
  ::l783:: do end
  ::l784:: do end
  ::l785:: do end
  ::l786:: do end
  ::l787:: do end
  ::l788:: do end
  ::l789:: do end
  ::l790:: do end
  ::l791:: do end
  ::l792:: do end
  ::l793:: do end
  ::l794:: do end
  ::l795:: do end
  ::l796:: do end
  ::l797:: do end
  ::l798:: do end
  ::l799:: do end
  ::l800:: do end
  ::l801:: do end
  ::l802:: do end
  ::l803:: do end
  ::l804:: do end
  ::l805:: do end
  ::l806:: do end
  ::l807:: do end
  ::l808:: do end
  ::l809:: do end
  ::l810:: do end
  ::l811:: do end
  ::l812:: do end
  ::l813:: do end
  ::l814:: do end
  ::l815:: do end
  ::l816:: do end
  ::l817:: do end
  ::l818:: do end
  ::l819:: do end
  ::l820:: do end
  ::l821:: do end
  ::l822:: do end
  ::l823:: do end
  ::l824:: do end
  ::l825:: do end
  ::l826:: do end
  ::l827:: do end
  ::l828:: do end
  ::l829:: do end
  ::l830:: do end
  ::l831:: do end
  ::l832:: do end
  ::l833:: do end
  ::l834:: do end
  ::l835:: do end
  ::l836:: do end
  ::l837:: do end
  ::l838:: do end
  ::l839:: do end
  ::l840:: do end
  ::l841:: do end
  ::l842:: do end
  ::l843:: do end
  ::l844:: do end
  ::l845:: do end
  ::l846:: do end
  ::l847:: do end
  ::l848:: do end
  ::l849:: do end
  ::l850:: do end
  ::l851:: do end
  ::l852:: do end
  ::l853:: do end
  ::l854:: do end
  ::l855:: do end
  ::l856:: do end
  ::l857:: do end
  ::l858:: do end
  ::l859:: do end
  ::l860:: do end
  ::l861:: do end
  ::l862:: do end
  ::l863:: do end
  ::l864:: do end
  ::l865:: do end
  ::l866:: do end
  ::l867:: do end
  ::l868:: do end
  ::l869:: do end
  ::l870:: do end
  ::l871:: do end
  ::l872:: do end
  ::l873:: do end
  ::l874:: do end
  ::l875:: do end
  ::l876:: do end
  ::l877:: do end
  ::l878:: do end
  ::l879:: do end
  ::l880:: do end
  ::l881:: do end
  ::l882:: do end
  ::l883:: do end
  ::l884:: do end
  ::l885:: do end
  ::l886:: do end
  ::l887:: do end
  ::l888:: do end
  ::l889:: do end
  ::l890:: do end
  ::l891:: do end
  ::l892:: do end
  ::l893:: do end
  ::l894:: do end
  ::l895:: do end
  ::l896:: do end
  ::l897:: do end
  ::l898:: do end
  ::l899:: do end
  ::l900:: do end
  ::l901:: do end
  ::l902:: do end
  ::l903:: do end
  ::l904:: do end
  ::l905:: do end
  ::l906:: do end
  ::l907:: do end
  ::l908:: do end
  ::l909:: do end
  ::l910:: do end
  ::l911:: do end
  ::l912:: do end
  ::l913:: do end
  ::l914:: do end
  ::l915:: do end
  ::l916:: do end
  ::l917:: do end
  ::l918:: do end
  ::l919:: do end
  ::l920:: do end
  ::l921:: do end
  ::l922:: do end
  ::l923:: do end
  ::l924:: do end
  ::l925:: do end
  ::l926:: do end
  ::l927:: do end
  ::l928:: do end
  ::l929:: do end
  ::l930:: do end
  ::l931:: do end
  ::l932:: do end
  ::l933:: do end
  ::l934:: do end
  ::l935:: do end
  ::l936:: do end
  ::l937:: do end
  ::l938:: do end
  ::l939:: do end
  ::l940:: do end
  ::l941:: do end
  ::l942:: do end
  ::l943:: do end
  ::l944:: do end
  ::l945:: do end
  ::l946:: do end
  ::l947:: do end
  ::l948:: do end
  ::l949:: do end
  ::l950:: do end
  ::l951:: do end
  ::l952:: do end
  ::l953:: do end
  ::l954:: do end
  ::l955:: do end
  ::l956:: do end
  ::l957:: do end
  ::l958:: do end
  ::l959:: do end
  ::l960:: do end
  ::l961:: do end
  ::l962:: do end
  ::l963:: do end
  ::l964:: do end
  ::l965:: do end
  ::l966:: do end
  ::l967:: do end
  ::l968:: do end
  ::l969:: do end
  ::l970:: do end
  ::l971:: do end
  ::l972:: do end
  ::l973:: do end
  ::l974:: do end
  ::l975:: do end
  ::l976:: do end
  ::l977:: do end
  ::l978:: do end
  ::l979:: do end
  ::l980:: do end
  ::l981:: do end
  ::l982:: do end
  ::l983:: do end
  ::l984:: do end
  ::l985:: do end
  ::l986:: do end
  ::l987:: do end
  ::l988:: do end
  ::l989:: do end
  ::l990:: do end
  ::l991:: do end
  ::l992:: do end
  ::l993:: do end
  ::l994:: do end
  ::l995:: do end
  ::l996:: do end
  ::l997:: do end
  ::l998:: do end
  ::l999:: do end
  ::l1000:: do end
  ::l1001:: do end
  ::l1002:: do end
  ::l1003:: do end
  ::l1004:: do end
  ::l1005:: do end
  ::l1006:: do end
  ::l1007:: do end
  ::l1008:: do end
  ::l1009:: do end
  ::l1010:: do end
  ::l1011:: do end
  ::l1012:: do end
  ::l1013:: do end
  ::l1014:: do end
  ::l1015:: do end
  ::l1016:: do end
  ::l1017:: do end
  ::l1018:: do end
  ::l1019:: do end
  ::l1020:: do end
  ::l1021:: do end
  ::l1022:: do end
  ::l1023:: do end
  ::l1024:: do end
  ::l1025:: do end
  ::l1026:: do end
  ::l1027:: do end
  ::l1028:: do end
  ::l1029:: do end
  ::l1030:: do end
  ::l1031:: do end
  ::l1032:: do end
  ::l1033:: do end
  ::l1034:: do end
  ::l1035:: do end
  ::l1036:: do end
  ::l1037:: do end
  ::l1038:: do end
  ::l1039:: do end
  ::l1040:: do end
  ::l1041:: do end
  ::l1042:: do end
  ::l1043:: do end
  ::l1044:: do end
  ::l1045:: do end
  ::l1046:: do end
  ::l1047:: do end
  ::l1048:: do end
  ::l1049:: do end
  ::l1050:: do end
  ::l1051:: do end
  ::l1052:: do end
  ::l1053:: do end
  ::l1054:: do end
  ::l1055:: do end
  ::l1056:: do end
  ::l1057:: do end
  ::l1058:: do end
  ::l1059:: do end
  ::l1060:: do end
  ::l1061:: do end
  ::l1062:: do end
  ::l1063:: do end
  ::l1064:: do end
  ::l1065:: do end
  ::l1066:: do end
  ::l1067:: do end
  ::l1068:: do end
  ::l1069:: do end
  ::l1070:: do end
  ::l1071:: do end
  ::l1072:: do end
  ::l1073:: do end
  ::l1074:: do end
  ::l1075:: do end
  ::l1076:: do end
  ::l1077:: do end
  ::l1078:: do end
  ::l1079:: do end
  ::l1080:: do end
  ::l1081:: do end
  ::l1082:: do end
  ::l1083:: do end
  ::l1084:: do end
  ::l1085:: do end
  ::l1086:: do end
  ::l1087:: do end
  ::l1088:: do end
  ::l1089:: do end
  ::l1090:: do end
  ::l1091:: do end
  ::l1092:: do end
  ::l1093:: do end
  ::l1094:: do end
  ::l1095:: do end
  ::l1096:: do end
  ::l1097:: do end
  ::l1098:: do end
  ::l1099:: do end
  ::l1100:: do end
  ::l1101:: do end
  ::l1102:: do end
  ::l1103:: do end
  ::l1104:: do end
  ::l1105:: do end
  ::l1106:: do end
  ::l1107:: do end
  ::l1108:: do end
  ::l1109:: do end
  ::l1110:: do end
  ::l1111:: do end
  ::l1112:: do end
  ::l1113:: do end
  ::l1114:: do end
  ::l1115:: do end
  ::l1116:: do end
  ::l1117:: do end
  ::l1118:: do end
  ::l1119:: do end
  ::l1120:: do end
  ::l1121:: do end
  ::l1122:: do end
  ::l1123:: do end
  ::l1124:: do end
  ::l1125:: do end
  ::l1126:: do end
  ::l1127:: do end
  ::l1128:: do end
  ::l1129:: do end
  ::l1130:: do end
  ::l1131:: do end
  ::l1132:: do end
  ::l1133:: do end
  ::l1134:: do end
  ::l1135:: do end
  ::l1136:: do end
  ::l1137:: do end
  ::l1138:: do end
  ::l1139:: do end
  ::l1140:: do end
  ::l1141:: do end
  ::l1142:: do end
  ::l1143:: do end
  ::l1144:: do end
  ::l1145:: do end
  ::l1146:: do end
  ::l1147:: do end
  ::l1148:: do end
  ::l1149:: do end
  ::l1150:: do end
  ::l1151:: do end
  ::l1152:: do end
  ::l1153:: do end
  ::l1154:: do end
  ::l1155:: do end
  ::l1156:: do end
  ::l1157:: do end
  ::l1158:: do end
  ::l1159:: do end
  ::l1160:: do end
  ::l1161:: do end
  ::l1162:: do end
  ::l1163:: do end
  ::l1164:: do end
  ::l1165:: do end
  ::l1166:: do end
  ::l1167:: do end
  ::l1168:: do end
  ::l1169:: do end
  ::l1170:: do end
  ::l1171:: do end
  ::l1172:: do end
  ::l1173:: do end
  ::l1174:: do end
  ::l1175:: do end
  ::l1176:: do end
  ::l1177:: do end
  ::l1178:: do end
  ::l1179:: do end
  ::l1180:: do end
  ::l1181:: do end
  ::l1182:: do end
  ::l1183:: do end
  ::l1184:: do end
  ::l1185:: do end
  ::l1186:: do end
  ::l1187:: do end
  ::l1188:: do end
  ::l1189:: do end
  ::l1190:: do end
  ::l1191:: do end
  ::l1192:: do end
  ::l1193:: do end
  ::l1194:: do end
  ::l1195:: do end
  ::l1196:: do end
  ::l1197:: do end
  ::l1198:: do end
  ::l1199:: do end
  ::l1200:: do end
  ::l1201:: do end
  ::l1202:: do end
  ::l1203:: do end
  ::l1204:: do end
  ::l1205:: do end
  ::l1206:: do end
  ::l1207:: do end
  ::l1208:: do end
  ::l1209:: do end
  ::l1210:: do end
  ::l1211:: do end
  ::l1212:: do end
  ::l1213:: do end
  ::l1214:: do end
  ::l1215:: do end
  ::l1216:: do end
  ::l1217:: do end
  ::l1218:: do end
  ::l1219:: do end
  ::l1220:: do end
  ::l1221:: do end
  ::l1222:: do end
  ::l1223:: do end
  ::l1224:: do end
  ::l1225:: do end
  ::l1226:: do end
  ::l1227:: do end
  ::l1228:: do end
  ::l1229:: do end
  ::l1230:: do end
  ::l1231:: do end
  ::l1232:: do end
  ::l1233:: do end
  ::l1234:: do end
  ::l1235:: do end
  ::l1236:: do end
  ::l1237:: do end
  ::l1238:: do end
  ::l1239:: do end
  ::l1240:: do end
  ::l1241:: do end
  ::l1242:: do end
  ::l1243:: do end
  ::l1244:: do end
  ::l1245:: do end
  ::l1246:: do end
  ::l1247:: do end
  ::l1248:: do end
  ::l1249:: do end
  ::l1250:: do end
  ::l1251:: do end
  ::l1252:: do end
  ::l1253:: do end
  ::l1254:: do end
  ::l1255:: do end
  ::l1256:: do end
  ::l1257:: do end
  ::l1258:: do end
  ::l1259:: do end
  ::l1260:: do end
  ::l1261:: do end
  ::l1262:: do end
  ::l1263:: do end
  ::l1264:: do end
  ::l1265:: do end
  ::l1266:: do end
  ::l1267:: do end
  ::l1268:: do end
  ::l1269:: do end
  ::l1270:: do end
  ::l1271:: do end
  ::l1272:: do end
  ::l1273:: do end
  ::l1274:: do end
  ::l1275:: do end
  ::l1276:: do end
  ::l1277:: do end
  ::l1278:: do end
  ::l1279:: do end
  ::l1280:: do end
  ::l1281:: do end
  ::l1282:: do end
  ::l1283:: do end
  ::l1284:: do end
  ::l1285:: do end
  ::l1286:: do end
  ::l1287:: do end
  ::l1288:: do end
  ::l1289:: do end
  ::l1290:: do end
  ::l1291:: do end
  ::l1292:: do end
  ::l1293:: do end
  ::l1294:: do end
  ::l1295:: do end
  ::l1296:: do end
  ::l1297:: do end
  ::l1298:: do end
  ::l1299:: do end
  ::l1300:: do end
  ::l1301:: do end
  ::l1302:: do end
  ::l1303:: do end
  ::l1304:: do end
  ::l1305:: do end
  ::l1306:: do end
  ::l1307:: do end
  ::l1308:: do end
  ::l1309:: do end
  ::l1310:: do end
  ::l1311:: do end
  ::l1312:: do end
  ::l1313:: do end
  ::l1314:: do end
  ::l1315:: do end
  ::l1316:: do end
  ::l1317:: do end
  ::l1318:: do end
  ::l1319:: do end
  ::l1320:: do end
  ::l1321:: do end
  ::l1322:: do end
  ::l1323:: do end
  ::l1324:: do end
  ::l1325:: do end
  ::l1326:: do end
  ::l1327:: do end
  ::l1328:: do end
  ::l1329:: do end
  ::l1330:: do end
  ::l1331:: do end
  ::l1332:: do end
  ::l1333:: do end
  ::l1334:: do end
  ::l1335:: do end
  ::l1336:: do end
  ::l1337:: do end
  ::l1338:: do end
  ::l1339:: do end
  ::l1340:: do end
  ::l1341:: do end
  ::l1342:: do end
  ::l1343:: do end
  ::l1344:: do end
  ::l1345:: do end
  ::l1346:: do end
  ::l1347:: do end
  ::l1348:: do end
  ::l1349:: do end
  ::l1350:: do end
  ::l1351:: do end
  ::l1352:: do end
  ::l1353:: do end
  ::l1354:: do end
  ::l1355:: do end
  ::l1356:: do end
  ::l1357:: do end
  ::l1358:: do end
  ::l1359:: do end
  ::l1360:: do end
  ::l1361:: do end
  ::l1362:: do end
  ::l1363:: do end
  ::l1364:: do end
  ::l1365:: do end
  ::l1366:: do end
  ::l1367:: do end
  ::l1368:: do end
  ::l1369:: do end
  ::l1370:: do end
  ::l1371:: do end
  ::l1372:: do end
  ::l1373:: do end
  ::l1374:: do end
  ::l1375:: do end
  ::l1376:: do end
  ::l1377:: do end
  ::l1378:: do end
  ::l1379:: do end
  ::l1380:: do end
  ::l1381:: do end
  ::l1382:: do end
  ::l1383:: do end
  ::l1384:: do end
  ::l1385:: do end
  ::l1386:: do end
  ::l1387:: do end
  ::l1388:: do end
  ::l1389:: do end
  ::l1390:: do end
  ::l1391:: do end
  ::l1392:: do end
  ::l1393:: do end
  ::l1394:: do end
  ::l1395:: do end
  ::l1396:: do end
  ::l1397:: do end
  ::l1398:: do end
  ::l1399:: do end
  ::l1400:: do end
  ::l1401:: do end
  ::l1402:: do end
  ::l1403:: do end
  ::l1404:: do end
  ::l1405:: do end
  ::l1406:: do end
  ::l1407:: do end
  ::l1408:: do end
  ::l1409:: do end
  ::l1410:: do end
  ::l1411:: do end
  ::l1412:: do end
  ::l1413:: do end
  ::l1414:: do end
  ::l1415:: do end
  ::l1416:: do end
  ::l1417:: do end
  ::l1418:: do end
  ::l1419:: do end
  ::l1420:: do end
  ::l1421:: do end
  ::l1422:: do end
  ::l1423:: do end
  ::l1424:: do end
  ::l1425:: do end
  ::l1426:: do end
  ::l1427:: do end
  ::l1428:: do end
  ::l1429:: do end
  ::l1430:: do end
  ::l1431:: do end
  ::l1432:: do end
  ::l1433:: do end
  ::l1434:: do end
  ::l1435:: do end
  ::l1436:: do end
  ::l1437:: do end
  ::l1438:: do end
  ::l1439:: do end
  ::l1440:: do end
  ::l1441:: do end
  ::l1442:: do end
  ::l1443:: do end
  ::l1444:: do end
  ::l1445:: do end
  ::l1446:: do end
  ::l1447:: do end
  ::l1448:: do end
  ::l1449:: do end
  ::l1450:: do end
  ::l1451:: do end
  ::l1452:: do end
  ::l1453:: do end
  ::l1454:: do end
  ::l1455:: do end
  ::l1456:: do end
  ::l1457:: do end
  ::l1458:: do end
  ::l1459:: do end
  ::l1460:: do end
  ::l1461:: do end
  ::l1462:: do end
  ::l1463:: do end
  ::l1464:: do end
  ::l1465:: do end
  ::l1466:: do end
  ::l1467:: do end
  ::l1468:: do end
  ::l1469:: do end
  ::l1470:: do end
  ::l1471:: do end
  ::l1472:: do end
  ::l1473:: do end
  ::l1474:: do end
  ::l1475:: do end
  ::l1476:: do end
  ::l1477:: do end
  ::l1478:: do end
  ::l1479:: do end
  ::l1480:: do end
  ::l1481:: do end
  ::l1482:: do end
  ::l1483:: do end
  ::l1484:: do end
  ::l1485:: do end
  ::l1486:: do end
  ::l1487:: do end
  ::l1488:: do end
  ::l1489:: do end
  ::l1490:: do end
  ::l1491:: do end
  ::l1492:: do end
  ::l1493:: do end
  ::l1494:: do end
  ::l1495:: do end
  ::l1496:: do end
  ::l1497:: do end
  ::l1498:: do end
  ::l1499:: do end
  ::l1500:: do end
  ::l1501:: do end
  ::l1502:: do end
  ::l1503:: do end
  ::l1504:: do end
  ::l1505:: do end
  ::l1506:: do end
  ::l1507:: do end
  ::l1508:: do end
  ::l1509:: do end
  ::l1510:: do end
  ::l1511:: do end
  ::l1512:: do end
  ::l1513:: do end
  ::l1514:: do end
  ::l1515:: do end
  ::l1516:: do end
  ::l1517:: do end
  ::l1518:: do end
  ::l1519:: do end
  ::l1520:: do end
  ::l1521:: do end
  ::l1522:: do end
  ::l1523:: do end
  ::l1524:: do end
  ::l1525:: do end
  ::l1526:: do end
  ::l1527:: do end
  ::l1528:: do end
  ::l1529:: do end
  ::l1530:: do end
  ::l1531:: do end
  ::l1532:: do end
  ::l1533:: do end
  ::l1534:: do end
  ::l1535:: do end
  ::l1536:: do end
  ::l1537:: do end
  ::l1538:: do end
  ::l1539:: do end
  ::l1540:: do end
  ::l1541:: do end
  ::l1542:: do end
  ::l1543:: do end
  ::l1544:: do end
  ::l1545:: do end
  ::l1546:: do end
  ::l1547:: do end
  ::l1548:: do end
  ::l1549:: do end
  ::l1550:: do end
  ::l1551:: do end
  ::l1552:: do end
  ::l1553:: do end
  ::l1554:: do end
  ::l1555:: do end
  ::l1556:: do end
  ::l1557:: do end
  ::l1558:: do end
  ::l1559:: do end
  ::l1560:: do end
  ::l1561:: do end
  ::l1562:: do end
  ::l1563:: do end
  ::l1564:: do end
  ::l1565:: do end
  ::l1566:: do end
  ::l1567:: do end
  ::l1568:: do end
  ::l1569:: do end
  ::l1570:: do end
  ::l1571:: do end
  ::l1572:: do end
  ::l1573:: do end
  ::l1574:: do end
  ::l1575:: do end
  ::l1576:: do end
  ::l1577:: do end
  ::l1578:: do end
  ::l1579:: do end
  ::l1580:: do end
  ::l1581:: do end
  ::l1582:: do end
  ::l1583:: do end
  ::l1584:: do end
  ::l1585:: do end
  ::l1586:: do end
  ::l1587:: do end
  ::l1588:: do end
  ::l1589:: do end
  ::l1590:: do end
  ::l1591:: do end
  ::l1592:: do end
  ::l1593:: do end
  ::l1594:: do end
  ::l1595:: do end
  ::l1596:: do end
  ::l1597:: do end
  ::l1598:: do end
  ::l1599:: do end
  ::l1600:: do end
  ::l1601:: do end
  ::l1602:: do end
  ::l1603:: do end
  ::l1604:: do end
  ::l1605:: do end
  ::l1606:: do end
  ::l1607:: do end
  ::l1608:: do end
  ::l1609:: do end
  ::l1610:: do end
  ::l1611:: do end
  ::l1612:: do end
  ::l1613:: do end
  ::l1614:: do end
  ::l1615:: do end
  ::l1616:: do end
  ::l1617:: do end
  ::l1618:: do end
  ::l1619:: do end
  ::l1620:: do end
  ::l1621:: do end
  ::l1622:: do end
  ::l1623:: do end
  ::l1624:: do end
  ::l1625:: do end
  ::l1626:: do end
  ::l1627:: do end
  ::l1628:: do end
  ::l1629:: do end
  ::l1630:: do end
  ::l1631:: do end
  ::l1632:: do end
  ::l1633:: do end
  ::l1634:: do end
  ::l1635:: do end
  ::l1636:: do end
  ::l1637:: do end
  ::l1638:: do end
  ::l1639:: do end
  ::l1640:: do end
  ::l1641:: do end
  ::l1642:: do end
  ::l1643:: do end
  ::l1644:: do end
  ::l1645:: do end
  ::l1646:: do end
  ::l1647:: do end
  ::l1648:: do end
  ::l1649:: do end
  ::l1650:: do end
  ::l1651:: do end
  ::l1652:: do end
  ::l1653:: do end
  ::l1654:: do end
  ::l1655:: do end
  ::l1656:: do end
  ::l1657:: do end
  ::l1658:: do end
  ::l1659:: do end
  ::l1660:: do end
  ::l1661:: do end
  ::l1662:: do end
  ::l1663:: do end
  ::l1664:: do end
  ::l1665:: do end
  ::l1666:: do end
  ::l1667:: do end
  ::l1668:: do end
  ::l1669:: do end
  ::l1670:: do end
  ::l1671:: do end
  ::l1672:: do end
  ::l1673:: do end
  ::l1674:: do end
  ::l1675:: do end
  ::l1676:: do end
  ::l1677:: do end
  ::l1678:: do end
  ::l1679:: do end
  ::l1680:: do end
  ::l1681:: do end
  ::l1682:: do end
  ::l1683:: do end
  ::l1684:: do end
  ::l1685:: do end
  ::l1686:: do end
  ::l1687:: do end
  ::l1688:: do end
  ::l1689:: do end
  ::l1690:: do end
  ::l1691:: do end
  ::l1692:: do end
  ::l1693:: do end
  ::l1694:: do end
  ::l1695:: do end
  ::l1696:: do end
  ::l1697:: do end
  ::l1698:: do end
  ::l1699:: do end
  ::l1700:: do end
  ::l1701:: do end
  ::l1702:: do end
  ::l1703:: do end
  ::l1704:: do end
  ::l1705:: do end
  ::l1706:: do end
  ::l1707:: do end
  ::l1708:: do end
  ::l1709:: do end
  ::l1710:: do end
  ::l1711:: do end
  ::l1712:: do end
  ::l1713:: do end
  ::l1714:: do end
  ::l1715:: do end
  ::l1716:: do end
  ::l1717:: do end
  ::l1718:: do end
  ::l1719:: do end
  ::l1720:: do end
  ::l1721:: do end
  ::l1722:: do end
  ::l1723:: do end
  ::l1724:: do end
  ::l1725:: do end
  ::l1726:: do end
  ::l1727:: do end
  ::l1728:: do end
  ::l1729:: do end
  ::l1730:: do end
  ::l1731:: do end
  ::l1732:: do end
  ::l1733:: do end
  ::l1734:: do end
  ::l1735:: do end
  ::l1736:: do end
  ::l1737:: do end
  ::l1738:: do end
  ::l1739:: do end
  ::l1740:: do end
  ::l1741:: do end
  ::l1742:: do end
  ::l1743:: do end
  ::l1744:: do end
  ::l1745:: do end
  ::l1746:: do end
  ::l1747:: do end
  ::l1748:: do end
  ::l1749:: do end
  ::l1750:: do end
  ::l1751:: do end
  ::l1752:: do end
  ::l1753:: do end
  ::l1754:: do end
  ::l1755:: do end
  ::l1756:: do end
  ::l1757:: do end
  ::l1758:: do end
  ::l1759:: do end
  ::l1760:: do end
  ::l1761:: do end
  ::l1762:: do end
  ::l1763:: do end
  ::l1764:: do end
  ::l1765:: do end
  ::l1766:: do end
  ::l1767:: do end
  ::l1768:: do end
  ::l1769:: do end
  ::l1770:: do end
  ::l1771:: do end
  ::l1772:: do end
  ::l1773:: do end
  ::l1774:: do end
  ::l1775:: do end
  ::l1776:: do end
  ::l1777:: do end
  ::l1778:: do end
  ::l1779:: do end
  ::l1780:: do end
  ::l1781:: do end
  ::l1782:: do end
  ::l1783:: do end
  ::l1784:: do end
  ::l1785:: do end
  ::l1786:: do end
  ::l1787:: do end
  ::l1788:: do end
  ::l1789:: do end
  ::l1790:: do end
  ::l1791:: do end
  ::l1792:: do end
  ::l1793:: do end
  ::l1794:: do end
  ::l1795:: do end
  ::l1796:: do end
  ::l1797:: do end
  ::l1798:: do end
  ::l1799:: do end
  ::l1800:: do end
  ::l1801:: do end
  ::l1802:: do end
  ::l1803:: do end
  ::l1804:: do end
  ::l1805:: do end
  ::l1806:: do end
  ::l1807:: do end
  ::l1808:: do end
  ::l1809:: do end
  ::l1810:: do end
  ::l1811:: do end
  ::l1812:: do end
  ::l1813:: do end
  ::l1814:: do end
  ::l1815:: do end
  ::l1816:: do end
  ::l1817:: do end
  ::l1818:: do end
  ::l1819:: do end
  ::l1820:: do end
  ::l1821:: do end
  ::l1822:: do end
  ::l1823:: do end
  ::l1824:: do end
  ::l1825:: do end
  ::l1826:: do end
  ::l1827:: do end
  ::l1828:: do end
  ::l1829:: do end
  ::l1830:: do end
  ::l1831:: do end
  ::l1832:: do end
  ::l1833:: do end
  ::l1834:: do end
  ::l1835:: do end
  ::l1836:: do end
  ::l1837:: do end
  ::l1838:: do end
  ::l1839:: do end
  ::l1840:: do end
  ::l1841:: do end
  ::l1842:: do end
  ::l1843:: do end
  ::l1844:: do end
  ::l1845:: do end
  ::l1846:: do end
  ::l1847:: do end
  ::l1848:: do end
  ::l1849:: do end
  ::l1850:: do end
  ::l1851:: do end
  ::l1852:: do end
  ::l1853:: do end
  ::l1854:: do end
  ::l1855:: do end
  ::l1856:: do end
  ::l1857:: do end
  ::l1858:: do end
  ::l1859:: do end
  ::l1860:: do end
  ::l1861:: do end
  ::l1862:: do end
  ::l1863:: do end
  ::l1864:: do end
  ::l1865:: do end
  ::l1866:: do end
  ::l1867:: do end
  ::l1868:: do end
  ::l1869:: do end
  ::l1870:: do end
  ::l1871:: do end
  ::l1872:: do end
  ::l1873:: do end
  ::l1874:: do end
  ::l1875:: do end
  ::l1876:: do end
  ::l1877:: do end
  ::l1878:: do end
  ::l1879:: do end
  ::l1880:: do end
  ::l1881:: do end
  ::l1882:: do end
  ::l1883:: do end
  ::l1884:: do end
  ::l1885:: do end
  ::l1886:: do end
  ::l1887:: do end
  ::l1888:: do end
  ::l1889:: do end
  ::l1890:: do end
  ::l1891:: do end
  ::l1892:: do end
  ::l1893:: do end
  ::l1894:: do end
  ::l1895:: do end
  ::l1896:: do end
  ::l1897:: do end
  ::l1898:: do end
  ::l1899:: do end
  ::l1900:: do end
  ::l1901:: do end
  ::l1902:: do end
  ::l1903:: do end
  ::l1904:: do end
  ::l1905:: do end
  ::l1906:: do end
  ::l1907:: do end
  ::l1908:: do end
  ::l1909:: do end
  ::l1910:: do end
  ::l1911:: do end
  ::l1912:: do end
  ::l1913:: do end
  ::l1914:: do end
  ::l1915:: do end
  ::l1916:: do end
  ::l1917:: do end
  ::l1918:: do end
  ::l1919:: do end
  ::l1920:: do end
  ::l1921:: do end
  ::l1922:: do end
  ::l1923:: do end
  ::l1924:: do end
  ::l1925:: do end
  ::l1926:: do end
  ::l1927:: do end
  ::l1928:: do end
  ::l1929:: do end
  ::l1930:: do end
  ::l1931:: do end
  ::l1932:: do end
  ::l1933:: do end
  ::l1934:: do end
  ::l1935:: do end
  ::l1936:: do end
  ::l1937:: do end
  ::l1938:: do end
  ::l1939:: do end
  ::l1940:: do end
  ::l1941:: do end
  ::l1942:: do end
  ::l1943:: do end
  ::l1944:: do end
  ::l1945:: do end
  ::l1946:: do end
  ::l1947:: do end
  ::l1948:: do end
  ::l1949:: do end
  ::l1950:: do end
  ::l1951:: do end
  ::l1952:: do end
  ::l1953:: do end
  ::l1954:: do end
  ::l1955:: do end
  ::l1956:: do end
  ::l1957:: do end
  ::l1958:: do end
  ::l1959:: do end
  ::l1960:: do end
  ::l1961:: do end
  ::l1962:: do end
  ::l1963:: do end
  ::l1964:: do end
  ::l1965:: do end
  ::l1966:: do end
  ::l1967:: do end
  ::l1968:: do end
  ::l1969:: do end
  ::l1970:: do end
  ::l1971:: do end
  ::l1972:: do end
  ::l1973:: do end
  ::l1974:: do end
  ::l1975:: do end
  ::l1976:: do end
  ::l1977:: do end
  ::l1978:: do end
  ::l1979:: do end
  ::l1980:: do end
  ::l1981:: do end
  ::l1982:: do end
  ::l1983:: do end
  ::l1984:: do end
  ::l1985:: do end
  ::l1986:: do end
  ::l1987:: do end
  ::l1988:: do end
  ::l1989:: do end
  ::l1990:: do end
  ::l1991:: do end
  ::l1992:: do end
  ::l1993:: do end
  ::l1994:: do end
  ::l1995:: do end
  ::l1996:: do end
  ::l1997:: do end
  ::l1998:: do end
  ::l1999:: do end
  ::l2000:: do end
  ::l2001:: do end
  ::l2002:: do end
  ::l2003:: do end
  ::l2004:: do end
  ::l2005:: do end
  ::l2006:: do end
  ::l2007:: do end
  ::l2008:: do end
  ::l2009:: do end
  ::l2010:: do end
  ::l2011:: do end
  ::l2012:: do end
  ::l2013:: do end
  ::l2014:: do end
  ::l2015:: do end
  ::l2016:: do end
  ::l2017:: do end
  ::l2018:: do end
  ::l2019:: do end
  ::l2020:: do end
  ::l2021:: do end
  ::l2022:: do end
  ::l2023:: do end
  ::l2024:: do end
  ::l2025:: do end
  ::l2026:: do end
  ::l2027:: do end
  ::l2028:: do end
  ::l2029:: do end
  ::l2030:: do end
  ::l2031:: do end
  ::l2032:: do end
  ::l2033:: do end
  ::l2034:: do end
  ::l2035:: do end
  ::l2036:: do end
  ::l2037:: do end
  ::l2038:: do end
  ::l2039:: do end
  ::l2040:: do end
  ::l2041:: do end
  ::l2042:: do end
  ::l2043:: do end
  ::l2044:: do end
  ::l2045:: do end
  ::l2046:: do end
  ::l2047:: do end
  ::l2048:: do end
  ::l2049:: do end
  ::l2050:: do end
  ::l2051:: do end
  ::l2052:: do end
  ::l2053:: do end
  ::l2054:: do end
  ::l2055:: do end
  ::l2056:: do end
  ::l2057:: do end
  ::l2058:: do end
  ::l2059:: do end
  ::l2060:: do end
  ::l2061:: do end
  ::l2062:: do end
  ::l2063:: do end
  ::l2064:: do end
  ::l2065:: do end
  ::l2066:: do end
  ::l2067:: do end
  ::l2068:: do end
  ::l2069:: do end
  ::l2070:: do end
  ::l2071:: do end
  ::l2072:: do end
  ::l2073:: do end
  ::l2074:: do end
  ::l2075:: do end
  ::l2076:: do end
  ::l2077:: do end
  ::l2078:: do end
  ::l2079:: do end
  ::l2080:: do end
  ::l2081:: do end
  ::l2082:: do end
  ::l2083:: do end
  ::l2084:: do end
  ::l2085:: do end
  ::l2086:: do end
  ::l2087:: do end
  ::l2088:: do end
  ::l2089:: do end
  ::l2090:: do end
  ::l2091:: do end
  ::l2092:: do end
  ::l2093:: do end
  ::l2094:: do end
  ::l2095:: do end
  ::l2096:: do end
  ::l2097:: do end
  ::l2098:: do end
  ::l2099:: do end
  ::l2100:: do end
  ::l2101:: do end
  ::l2102:: do end
  ::l2103:: do end
  ::l2104:: do end
  ::l2105:: do end
  ::l2106:: do end
  ::l2107:: do end
  ::l2108:: do end
  ::l2109:: do end
  ::l2110:: do end
  ::l2111:: do end
  ::l2112:: do end
  ::l2113:: do end
  ::l2114:: do end
  ::l2115:: do end
  ::l2116:: do end
  ::l2117:: do end
  ::l2118:: do end
  ::l2119:: do end
  ::l2120:: do end
  ::l2121:: do end
  ::l2122:: do end
  ::l2123:: do end
  ::l2124:: do end
  ::l2125:: do end
  ::l2126:: do end
  ::l2127:: do end
  ::l2128:: do end
  ::l2129:: do end
  ::l2130:: do end
  ::l2131:: do end
  ::l2132:: do end
  ::l2133:: do end
  ::l2134:: do end
  ::l2135:: do end
  ::l2136:: do end
  ::l2137:: do end
  ::l2138:: do end
  ::l2139:: do end
  ::l2140:: do end
  ::l2141:: do end
  ::l2142:: do end
  ::l2143:: do end
  ::l2144:: do end
  ::l2145:: do end
  ::l2146:: do end
  ::l2147:: do end
  ::l2148:: do end
  ::l2149:: do end
  ::l2150:: do end
  ::l2151:: do end
  ::l2152:: do end
  ::l2153:: do end
  ::l2154:: do end
  ::l2155:: do end
  ::l2156:: do end
  ::l2157:: do end
  ::l2158:: do end
  ::l2159:: do end
  ::l2160:: do end
  ::l2161:: do end
  ::l2162:: do end
  ::l2163:: do end
  ::l2164:: do end
  ::l2165:: do end
  ::l2166:: do end
  ::l2167:: do end
  ::l2168:: do end
  ::l2169:: do end
  ::l2170:: do end
  ::l2171:: do end
  ::l2172:: do end
  ::l2173:: do end
  ::l2174:: do end
  ::l2175:: do end
  ::l2176:: do end
  ::l2177:: do end
  ::l2178:: do end
  ::l2179:: do end
  ::l2180:: do end
  ::l2181:: do end
  ::l2182:: do end
  ::l2183:: do end
  ::l2184:: do end
  ::l2185:: do end
  ::l2186:: do end
  ::l2187:: do end
  ::l2188:: do end
  ::l2189:: do end
  ::l2190:: do end
  ::l2191:: do end
  ::l2192:: do end
  ::l2193:: do end
  ::l2194:: do end
  ::l2195:: do end
  ::l2196:: do end
  ::l2197:: do end
  ::l2198:: do end
  ::l2199:: do end
  ::l2200:: do end
  ::l2201:: do end
  ::l2202:: do end
  ::l2203:: do end
  ::l2204:: do end
  ::l2205:: do end
  ::l2206:: do end
  ::l2207:: do end
  ::l2208:: do end
  ::l2209:: do end
  ::l2210:: do end
  ::l2211:: do end
  ::l2212:: do end
  ::l2213:: do end
  ::l2214:: do end
  ::l2215:: do end
  ::l2216:: do end
  ::l2217:: do end
  ::l2218:: do end
  ::l2219:: do end
  ::l2220:: do end
  ::l2221:: do end
  ::l2222:: do end
  ::l2223:: do end
  ::l2224:: do end
  ::l2225:: do end
  ::l2226:: do end
  ::l2227:: do end
  ::l2228:: do end
  ::l2229:: do end
  ::l2230:: do end
  ::l2231:: do end
  ::l2232:: do end
  ::l2233:: do end
  ::l2234:: do end
  ::l2235:: do end
  ::l2236:: do end
  ::l2237:: do end
  ::l2238:: do end
  ::l2239:: do end
  ::l2240:: do end
  ::l2241:: do end
  ::l2242:: do end
  ::l2243:: do end
  ::l2244:: do end
  ::l2245:: do end
  ::l2246:: do end
  ::l2247:: do end
  ::l2248:: do end
  ::l2249:: do end
  ::l2250:: do end
  ::l2251:: do end
  ::l2252:: do end
  ::l2253:: do end
  ::l2254:: do end
  ::l2255:: do end
  ::l2256:: do end
  ::l2257:: do end
  ::l2258:: do end
  ::l2259:: do end
  ::l2260:: do end
  ::l2261:: do end
  ::l2262:: do end
  ::l2263:: do end
  ::l2264:: do end
  ::l2265:: do end
  ::l2266:: do end
  ::l2267:: do end
  ::l2268:: do end
  ::l2269:: do end
  ::l2270:: do end
  ::l2271:: do end
  ::l2272:: do end
  ::l2273:: do end
  ::l2274:: do end
  ::l2275:: do end
  ::l2276:: do end
  ::l2277:: do end
  ::l2278:: do end
  ::l2279:: do end
  ::l2280:: do end
  ::l2281:: do end
  ::l2282:: do end
  ::l2283:: do end
  ::l2284:: do end
  ::l2285:: do end
  ::l2286:: do end
  ::l2287:: do end
  ::l2288:: do end
  ::l2289:: do end
  ::l2290:: do end
  ::l2291:: do end
  ::l2292:: do end
  ::l2293:: do end
  ::l2294:: do end
  ::l2295:: do end
  ::l2296:: do end
  ::l2297:: do end
  ::l2298:: do end
  ::l2299:: do end
  ::l2300:: do end
  ::l2301:: do end
  ::l2302:: do end
  ::l2303:: do end
  ::l2304:: do end
  ::l2305:: do end
  ::l2306:: do end
  ::l2307:: do end
  ::l2308:: do end
  ::l2309:: do end
  ::l2310:: do end
  ::l2311:: do end
  ::l2312:: do end
  ::l2313:: do end
  ::l2314:: do end
  ::l2315:: do end
  ::l2316:: do end
  ::l2317:: do end
  ::l2318:: do end
  ::l2319:: do end
  ::l2320:: do end
  ::l2321:: do end
  ::l2322:: do end
  ::l2323:: do end
  ::l2324:: do end
  ::l2325:: do end
  ::l2326:: do end
  ::l2327:: do end
  ::l2328:: do end
  ::l2329:: do end
  ::l2330:: do end
  ::l2331:: do end
  ::l2332:: do end
  ::l2333:: do end
  ::l2334:: do end
  ::l2335:: do end
  ::l2336:: do end
  ::l2337:: do end
  ::l2338:: do end
  ::l2339:: do end
  ::l2340:: do end
  ::l2341:: do end
  ::l2342:: do end
  ::l2343:: do end
  ::l2344:: do end
  ::l2345:: do end
  ::l2346:: do end
  ::l2347:: do end
  ::l2348:: do end
  ::l2349:: do end
  ::l2350:: do end
  ::l2351:: do end
  ::l2352:: do end
  ::l2353:: do end
  ::l2354:: do end
  ::l2355:: do end
  ::l2356:: do end
  ::l2357:: do end
  ::l2358:: do end
  ::l2359:: do end
  ::l2360:: do end
  ::l2361:: do end
  ::l2362:: do end
  ::l2363:: do end
  ::l2364:: do end
  ::l2365:: do end
  ::l2366:: do end
  ::l2367:: do end
  ::l2368:: do end
  ::l2369:: do end
  ::l2370:: do end
  ::l2371:: do end
  ::l2372:: do end
  ::l2373:: do end
  ::l2374:: do end
  ::l2375:: do end
  ::l2376:: do end
  ::l2377:: do end
  ::l2378:: do end
  ::l2379:: do end
  ::l2380:: do end
  ::l2381:: do end
  ::l2382:: do end
  ::l2383:: do end
  ::l2384:: do end
  ::l2385:: do end
  ::l2386:: do end
  ::l2387:: do end
  ::l2388:: do end
  ::l2389:: do end
  ::l2390:: do end
  ::l2391:: do end
  ::l2392:: do end
  ::l2393:: do end
  ::l2394:: do end
  ::l2395:: do end
  ::l2396:: do end
  ::l2397:: do end
  ::l2398:: do end
  ::l2399:: do end
  ::l2400:: do end
  ::l2401:: do end
  ::l2402:: do end
  ::l2403:: do end
  ::l2404:: do end
  ::l2405:: do end
  ::l2406:: do end
  ::l2407:: do end
  ::l2408:: do end
  ::l2409:: do end
  ::l2410:: do end
  ::l2411:: do end
  ::l2412:: do end
  ::l2413:: do end
  ::l2414:: do end
  ::l2415:: do end
  ::l2416:: do end
  ::l2417:: do end
  ::l2418:: do end
  ::l2419:: do end
  ::l2420:: do end
  ::l2421:: do end
  ::l2422:: do end
  ::l2423:: do end
  ::l2424:: do end
  ::l2425:: do end
  ::l2426:: do end
  ::l2427:: do end
  ::l2428:: do end
  ::l2429:: do end
  ::l2430:: do end
  ::l2431:: do end
  ::l2432:: do end
  ::l2433:: do end
  ::l2434:: do end
  ::l2435:: do end
  ::l2436:: do end
  ::l2437:: do end
  ::l2438:: do end
  ::l2439:: do end
  ::l2440:: do end
  ::l2441:: do end
  ::l2442:: do end
  ::l2443:: do end
  ::l2444:: do end
  ::l2445:: do end
  ::l2446:: do end
  ::l2447:: do end
  ::l2448:: do end
  ::l2449:: do end
  ::l2450:: do end
  ::l2451:: do end
  ::l2452:: do end
  ::l2453:: do end
  ::l2454:: do end
  ::l2455:: do end
  ::l2456:: do end
  ::l2457:: do end
  ::l2458:: do end
  ::l2459:: do end
  ::l2460:: do end
  ::l2461:: do end
  ::l2462:: do end
  ::l2463:: do end
  ::l2464:: do end
  ::l2465:: do end
  ::l2466:: do end
  ::l2467:: do end
  ::l2468:: do end
  ::l2469:: do end
  ::l2470:: do end
  ::l2471:: do end
  ::l2472:: do end
  ::l2473:: do end
  ::l2474:: do end
  ::l2475:: do end
  ::l2476:: do end
  ::l2477:: do end
  ::l2478:: do end
  ::l2479:: do end
  ::l2480:: do end
  ::l2481:: do end
  ::l2482:: do end
  ::l2483:: do end
  ::l2484:: do end
  ::l2485:: do end
  ::l2486:: do end
  ::l2487:: do end
  ::l2488:: do end
  ::l2489:: do end
  ::l2490:: do end
  ::l2491:: do end
  ::l2492:: do end
  ::l2493:: do end
  ::l2494:: do end
  ::l2495:: do end
  ::l2496:: do end
  ::l2497:: do end
  ::l2498:: do end
  ::l2499:: do end
  ::l2500:: do end
  ::l2501:: do end
  ::l2502:: do end
  ::l2503:: do end
  ::l2504:: do end
  ::l2505:: do end
  ::l2506:: do end
  ::l2507:: do end
  ::l2508:: do end
  ::l2509:: do end
  ::l2510:: do end
  ::l2511:: do end
  ::l2512:: do end
  ::l2513:: do end
  ::l2514:: do end
  ::l2515:: do end
  ::l2516:: do end
  ::l2517:: do end
  ::l2518:: do end
  ::l2519:: do end
  ::l2520:: do end
  ::l2521:: do end
  ::l2522:: do end
  ::l2523:: do end
  ::l2524:: do end
  ::l2525:: do end
  ::l2526:: do end
  ::l2527:: do end
  ::l2528:: do end
  ::l2529:: do end
  ::l2530:: do end
  ::l2531:: do end
  ::l2532:: do end
  ::l2533:: do end
  ::l2534:: do end
  ::l2535:: do end
  ::l2536:: do end
  ::l2537:: do end
  ::l2538:: do end
  ::l2539:: do end
  ::l2540:: do end
  ::l2541:: do end
  ::l2542:: do end
  ::l2543:: do end
  ::l2544:: do end
  ::l2545:: do end
  ::l2546:: do end
  ::l2547:: do end
  ::l2548:: do end
  ::l2549:: do end
  ::l2550:: do end
  ::l2551:: do end
  ::l2552:: do end
  ::l2553:: do end
  ::l2554:: do end
  ::l2555:: do end
  ::l2556:: do end
  ::l2557:: do end
  ::l2558:: do end
  ::l2559:: do end
  ::l2560:: do end
  ::l2561:: do end
  ::l2562:: do end
  ::l2563:: do end
  ::l2564:: do end
  ::l2565:: do end
  ::l2566:: do end
  ::l2567:: do end
  ::l2568:: do end
  ::l2569:: do end
  ::l2570:: do end
  ::l2571:: do end
  ::l2572:: do end
  ::l2573:: do end
  ::l2574:: do end
  ::l2575:: do end
  ::l2576:: do end
  ::l2577:: do end
  ::l2578:: do end
  ::l2579:: do end
  ::l2580:: do end
  ::l2581:: do end
  ::l2582:: do end
  ::l2583:: do end
  ::l2584:: do end
  ::l2585:: do end
  ::l2586:: do end
  ::l2587:: do end
  ::l2588:: do end
  ::l2589:: do end
  ::l2590:: do end
  ::l2591:: do end
  ::l2592:: do end
  ::l2593:: do end
  ::l2594:: do end
  ::l2595:: do end
  ::l2596:: do end
  ::l2597:: do end
  ::l2598:: do end
  ::l2599:: do end
  ::l2600:: do end
  ::l2601:: do end
  ::l2602:: do end
  ::l2603:: do end
  ::l2604:: do end
  ::l2605:: do end
  ::l2606:: do end
  ::l2607:: do end
  ::l2608:: do end
  ::l2609:: do end
  ::l2610:: do end
  ::l2611:: do end
  ::l2612:: do end
  ::l2613:: do end
  ::l2614:: do end
  ::l2615:: do end
  ::l2616:: do end
  ::l2617:: do end
  ::l2618:: do end
  ::l2619:: do end
  ::l2620:: do end
  ::l2621:: do end
  ::l2622:: do end
  ::l2623:: do end
  ::l2624:: do end
  ::l2625:: do end
  ::l2626:: do end
  ::l2627:: do end
  ::l2628:: do end
  ::l2629:: do end
  ::l2630:: do end
  ::l2631:: do end
  ::l2632:: do end
  ::l2633:: do end
  ::l2634:: do end
  ::l2635:: do end
  ::l2636:: do end
  ::l2637:: do end
  ::l2638:: do end
  ::l2639:: do end
  ::l2640:: do end
  ::l2641:: do end
  ::l2642:: do end
  ::l2643:: do end
  ::l2644:: do end
  ::l2645:: do end
  ::l2646:: do end
  ::l2647:: do end
  ::l2648:: do end
  ::l2649:: do end
  ::l2650:: do end
  ::l2651:: do end
  ::l2652:: do end
  ::l2653:: do end
  ::l2654:: do end
  ::l2655:: do end
  ::l2656:: do end
  ::l2657:: do end
  ::l2658:: do end
  ::l2659:: do end
  ::l2660:: do end
  ::l2661:: do end
  ::l2662:: do end
  ::l2663:: do end
  ::l2664:: do end
  ::l2665:: do end
  ::l2666:: do end
  ::l2667:: do end
  ::l2668:: do end
  ::l2669:: do end
  ::l2670:: do end
  ::l2671:: do end
  ::l2672:: do end
  ::l2673:: do end
  ::l2674:: do end
  ::l2675:: do end
  ::l2676:: do end
  ::l2677:: do end
  ::l2678:: do end
  ::l2679:: do end
  ::l2680:: do end
  ::l2681:: do end
  ::l2682:: do end
  ::l2683:: do end
  ::l2684:: do end
  ::l2685:: do end
  ::l2686:: do end
  ::l2687:: do end
  ::l2688:: do end
  ::l2689:: do end
  ::l2690:: do end
  ::l2691:: do end
  ::l2692:: do end
  ::l2693:: do end
  ::l2694:: do end
  ::l2695:: do end
  ::l2696:: do end
  ::l2697:: do end
  ::l2698:: do end
  ::l2699:: do end
  ::l2700:: do end
  ::l2701:: do end
  ::l2702:: do end
  ::l2703:: do end
  ::l2704:: do end
  ::l2705:: do end
  ::l2706:: do end
  ::l2707:: do end
  ::l2708:: do end
  ::l2709:: do end
  ::l2710:: do end
  ::l2711:: do end
  ::l2712:: do end
  ::l2713:: do end
  ::l2714:: do end
  ::l2715:: do end
  ::l2716:: do end
  ::l2717:: do end
  ::l2718:: do end
  ::l2719:: do end
  ::l2720:: do end
  ::l2721:: do end
  ::l2722:: do end
  ::l2723:: do end
  ::l2724:: do end
  ::l2725:: do end
  ::l2726:: do end
  ::l2727:: do end
  ::l2728:: do end
  ::l2729:: do end
  ::l2730:: do end
  ::l2731:: do end
  ::l2732:: do end
  ::l2733:: do end
  ::l2734:: do end
  ::l2735:: do end
  ::l2736:: do end
  ::l2737:: do end
  ::l2738:: do end
  ::l2739:: do end
  ::l2740:: do end
  ::l2741:: do end
  ::l2742:: do end
  ::l2743:: do end
  ::l2744:: do end
  ::l2745:: do end
  ::l2746:: do end
  ::l2747:: do end
  ::l2748:: do end
  ::l2749:: do end
  ::l2750:: do end
  ::l2751:: do end
  ::l2752:: do end
  ::l2753:: do end
  ::l2754:: do end
  ::l2755:: do end
  ::l2756:: do end
  ::l2757:: do end
  ::l2758:: do end
  ::l2759:: do end
  ::l2760:: do end
  ::l2761:: do end
  ::l2762:: do end
  ::l2763:: do end
  ::l2764:: do end
  ::l2765:: do end
  ::l2766:: do end
  ::l2767:: do end
  ::l2768:: do end
  ::l2769:: do end
  ::l2770:: do end
  ::l2771:: do end
  ::l2772:: do end
  ::l2773:: do end
  ::l2774:: do end
  ::l2775:: do end
  ::l2776:: do end
  ::l2777:: do end
  ::l2778:: do end
  ::l2779:: do end
  ::l2780:: do end
  ::l2781:: do end
  ::l2782:: do end
  ::l2783:: do end
  ::l2784:: do end
  ::l2785:: do end
  ::l2786:: do end
  ::l2787:: do end
  ::l2788:: do end
  ::l2789:: do end
  ::l2790:: do end
  ::l2791:: do end
  ::l2792:: do end
  ::l2793:: do end
  ::l2794:: do end
  ::l2795:: do end
  ::l2796:: do end
  ::l2797:: do end
  ::l2798:: do end
  ::l2799:: do end
  ::l2800:: do end
  ::l2801:: do end
  ::l2802:: do end
  ::l2803:: do end
  ::l2804:: do end
  ::l2805:: do end
  ::l2806:: do end
  ::l2807:: do end
  ::l2808:: do end
  ::l2809:: do end
  ::l2810:: do end
  ::l2811:: do end
  ::l2812:: do end
  ::l2813:: do end
  ::l2814:: do end
  ::l2815:: do end
  ::l2816:: do end
  ::l2817:: do end
  ::l2818:: do end
  ::l2819:: do end
  ::l2820:: do end
  ::l2821:: do end
  ::l2822:: do end
  ::l2823:: do end
  ::l2824:: do end
  ::l2825:: do end
  ::l2826:: do end
  ::l2827:: do end
  ::l2828:: do end
  ::l2829:: do end
  ::l2830:: do end
  ::l2831:: do end
  ::l2832:: do end
  ::l2833:: do end
  ::l2834:: do end
  ::l2835:: do end
  ::l2836:: do end
  ::l2837:: do end
  ::l2838:: do end
  ::l2839:: do end
  ::l2840:: do end
  ::l2841:: do end
  ::l2842:: do end
  ::l2843:: do end
  ::l2844:: do end
  ::l2845:: do end
  ::l2846:: do end
  ::l2847:: do end
  ::l2848:: do end
  ::l2849:: do end
  ::l2850:: do end
  ::l2851:: do end
  ::l2852:: do end
  ::l2853:: do end
  ::l2854:: do end
  ::l2855:: do end
  ::l2856:: do end
  ::l2857:: do end
  ::l2858:: do end
  ::l2859:: do end
  ::l2860:: do end
  ::l2861:: do end
  ::l2862:: do end
  ::l2863:: do end
  ::l2864:: do end
  ::l2865:: do end
  ::l2866:: do end
  ::l2867:: do end
  ::l2868:: do end
  ::l2869:: do end
  ::l2870:: do end
  ::l2871:: do end
  ::l2872:: do end
  ::l2873:: do end
  ::l2874:: do end
  ::l2875:: do end
  ::l2876:: do end
  ::l2877:: do end
  ::l2878:: do end
  ::l2879:: do end
  ::l2880:: do end
  ::l2881:: do end
  ::l2882:: do end
  ::l2883:: do end
  ::l2884:: do end
  ::l2885:: do end
  ::l2886:: do end
  ::l2887:: do end
  ::l2888:: do end
  ::l2889:: do end
  ::l2890:: do end
  ::l2891:: do end
  ::l2892:: do end
  ::l2893:: do end
  ::l2894:: do end
  ::l2895:: do end
  ::l2896:: do end
  ::l2897:: do end
  ::l2898:: do end
  ::l2899:: do end
  ::l2900:: do end
  ::l2901:: do end
  ::l2902:: do end
  ::l2903:: do end
  ::l2904:: do end
  ::l2905:: do end
  ::l2906:: do end
  ::l2907:: do end
  ::l2908:: do end
  ::l2909:: do end
  ::l2910:: do end
  ::l2911:: do end
  ::l2912:: do end
  ::l2913:: do end
  ::l2914:: do end
  ::l2915:: do end
  ::l2916:: do end
  ::l2917:: do end
  ::l2918:: do end
  ::l2919:: do end
  ::l2920:: do end
  ::l2921:: do end
  ::l2922:: do end
  ::l2923:: do end
  ::l2924:: do end
  ::l2925:: do end
  ::l2926:: do end
  ::l2927:: do end
  ::l2928:: do end
  ::l2929:: do end
  ::l2930:: do end
  ::l2931:: do end
  ::l2932:: do end
  ::l2933:: do end
  ::l2934:: do end
  ::l2935:: do end
  ::l2936:: do end
  ::l2937:: do end
  ::l2938:: do end
  ::l2939:: do end
  ::l2940:: do end
  ::l2941:: do end
  ::l2942:: do end
  ::l2943:: do end
  ::l2944:: do end
  ::l2945:: do end
  ::l2946:: do end
  ::l2947:: do end
  ::l2948:: do end
  ::l2949:: do end
  ::l2950:: do end
  ::l2951:: do end
  ::l2952:: do end
  ::l2953:: do end
  ::l2954:: do end
  ::l2955:: do end
  ::l2956:: do end
  ::l2957:: do end
  ::l2958:: do end
  ::l2959:: do end
  ::l2960:: do end
  ::l2961:: do end
  ::l2962:: do end
  ::l2963:: do end
  ::l2964:: do end
  ::l2965:: do end
  ::l2966:: do end
  ::l2967:: do end
  ::l2968:: do end
  ::l2969:: do end
  ::l2970:: do end
  ::l2971:: do end
  ::l2972:: do end
  ::l2973:: do end
  ::l2974:: do end
  ::l2975:: do end
  ::l2976:: do end
  ::l2977:: do end
  ::l2978:: do end
  ::l2979:: do end
  ::l2980:: do end
  ::l2981:: do end
  ::l2982:: do end
  ::l2983:: do end
  ::l2984:: do end
  ::l2985:: do end
  ::l2986:: do end
  ::l2987:: do end
  ::l2988:: do end
  ::l2989:: do end
  ::l2990:: do end
  ::l2991:: do end
  ::l2992:: do end
  ::l2993:: do end
  ::l2994:: do end
  ::l2995:: do end
  ::l2996:: do end
  ::l2997:: do end
  ::l2998:: do end
  ::l2999:: do end
  ::l3000:: do end
  ::l3001:: do end
  ::l3002:: do end
  ::l3003:: do end
  ::l3004:: do end
  ::l3005:: do end
  ::l3006:: do end
  ::l3007:: do end
  ::l3008:: do end
  ::l3009:: do end
  ::l3010:: do end
  ::l3011:: do end
  ::l3012:: do end
  ::l3013:: do end
  ::l3014:: do end
  ::l3015:: do end
  ::l3016:: do end
  ::l3017:: do end
  ::l3018:: do end
  ::l3019:: do end
  ::l3020:: do end
  ::l3021:: do end
  ::l3022:: do end
  ::l3023:: do end
  ::l3024:: do end
  ::l3025:: do end
  ::l3026:: do end
  ::l3027:: do end
  ::l3028:: do end
  ::l3029:: do end
  ::l3030:: do end
  ::l3031:: do end
  ::l3032:: do end
  ::l3033:: do end
  ::l3034:: do end
  ::l3035:: do end
  ::l3036:: do end
  ::l3037:: do end
  ::l3038:: do end
  ::l3039:: do end
  ::l3040:: do end
  ::l3041:: do end
  ::l3042:: do end
  ::l3043:: do end
  ::l3044:: do end
  ::l3045:: do end
  ::l3046:: do end
  ::l3047:: do end
  ::l3048:: do end
  ::l3049:: do end
  ::l3050:: do end
  ::l3051:: do end
  ::l3052:: do end
  ::l3053:: do end
  ::l3054:: do end
  ::l3055:: do end
  ::l3056:: do end
  ::l3057:: do end
  ::l3058:: do end
  ::l3059:: do end
  ::l3060:: do end
  ::l3061:: do end
  ::l3062:: do end
  ::l3063:: do end
  ::l3064:: do end
  ::l3065:: do end
  ::l3066:: do end
  ::l3067:: do end
  ::l3068:: do end
  ::l3069:: do end
  ::l3070:: do end
  ::l3071:: do end
  ::l3072:: do end
  ::l3073:: do end
  ::l3074:: do end
  ::l3075:: do end
  ::l3076:: do end
  ::l3077:: do end
  ::l3078:: do end
  ::l3079:: do end
  ::l3080:: do end
  ::l3081:: do end
  ::l3082:: do end
  ::l3083:: do end
  ::l3084:: do end
  ::l3085:: do end
  ::l3086:: do end
  ::l3087:: do end
  ::l3088:: do end
  ::l3089:: do end
  ::l3090:: do end
  ::l3091:: do end
  ::l3092:: do end
  ::l3093:: do end
  ::l3094:: do end
  ::l3095:: do end
  ::l3096:: do end
  ::l3097:: do end
  ::l3098:: do end
  ::l3099:: do end
  ::l3100:: do end
  ::l3101:: do end
  ::l3102:: do end
  ::l3103:: do end
  ::l3104:: do end
  ::l3105:: do end
  ::l3106:: do end
  ::l3107:: do end
  ::l3108:: do end
  ::l3109:: do end
  ::l3110:: do end
  ::l3111:: do end
  ::l3112:: do end
  ::l3113:: do end
  ::l3114:: do end
  ::l3115:: do end
  ::l3116:: do end
  ::l3117:: do end
  ::l3118:: do end
  ::l3119:: do end
  ::l3120:: do end
  ::l3121:: do end
  ::l3122:: do end
  ::l3123:: do end
  ::l3124:: do end
  ::l3125:: do end
  ::l3126:: do end
  ::l3127:: do end
  ::l3128:: do end
  ::l3129:: do end
  ::l3130:: do end
  ::l3131:: do end
  ::l3132:: do end
  ::l3133:: do end
  ::l3134:: do end
  ::l3135:: do end
  ::l3136:: do end
  ::l3137:: do end
  ::l3138:: do end
  ::l3139:: do end
  ::l3140:: do end
  ::l3141:: do end
  ::l3142:: do end
  ::l3143:: do end
  ::l3144:: do end
  ::l3145:: do end
  ::l3146:: do end
  ::l3147:: do end
  ::l3148:: do end
  ::l3149:: do end
  ::l3150:: do end
  ::l3151:: do end
  ::l3152:: do end
  ::l3153:: do end
  ::l3154:: do end
  ::l3155:: do end
  ::l3156:: do end
  ::l3157:: do end
  ::l3158:: do end
  ::l3159:: do end
  ::l3160:: do end
  ::l3161:: do end
  ::l3162:: do end
  ::l3163:: do end
  ::l3164:: do end
  ::l3165:: do end
  ::l3166:: do end
  ::l3167:: do end
  ::l3168:: do end
  ::l3169:: do end
  ::l3170:: do end
  ::l3171:: do end
  ::l3172:: do end
  ::l3173:: do end
  ::l3174:: do end
  ::l3175:: do end
  ::l3176:: do end
  ::l3177:: do end
  ::l3178:: do end
  ::l3179:: do end
  ::l3180:: do end
  ::l3181:: do end
  ::l3182:: do end
  ::l3183:: do end
  ::l3184:: do end
  ::l3185:: do end
  ::l3186:: do end
  ::l3187:: do end
  ::l3188:: do end
  ::l3189:: do end
  ::l3190:: do end
  ::l3191:: do end
  ::l3192:: do end
  ::l3193:: do end
  ::l3194:: do end
  ::l3195:: do end
  ::l3196:: do end
  ::l3197:: do end
  ::l3198:: do end
  ::l3199:: do end
  ::l3200:: do end
  ::l3201:: do end
  ::l3202:: do end
  ::l3203:: do end
  ::l3204:: do end
  ::l3205:: do end
  ::l3206:: do end
  ::l3207:: do end
  ::l3208:: do end
  ::l3209:: do end
  ::l3210:: do end
  ::l3211:: do end
  ::l3212:: do end
  ::l3213:: do end
  ::l3214:: do end
  ::l3215:: do end
  ::l3216:: do end
  ::l3217:: do end
  ::l3218:: do end
  ::l3219:: do end
  ::l3220:: do end
  ::l3221:: do end
  ::l3222:: do end
  ::l3223:: do end
  ::l3224:: do end
  ::l3225:: do end
  ::l3226:: do end
  ::l3227:: do end
  ::l3228:: do end
  ::l3229:: do end
  ::l3230:: do end
  ::l3231:: do end
  ::l3232:: do end
  ::l3233:: do end
  ::l3234:: do end
  ::l3235:: do end
  ::l3236:: do end
  ::l3237:: do end
  ::l3238:: do end
  ::l3239:: do end
  ::l3240:: do end
  ::l3241:: do end
  ::l3242:: do end
  ::l3243:: do end
  ::l3244:: do end
  ::l3245:: do end
  ::l3246:: do end
  ::l3247:: do end
  ::l3248:: do end
  ::l3249:: do end
  ::l3250:: do end
  ::l3251:: do end
  ::l3252:: do end
  ::l3253:: do end
  ::l3254:: do end
  ::l3255:: do end
  ::l3256:: do end
  ::l3257:: do end
  ::l3258:: do end
  ::l3259:: do end
  ::l3260:: do end
  ::l3261:: do end
  ::l3262:: do end
  ::l3263:: do end
  ::l3264:: do end
  ::l3265:: do end
  ::l3266:: do end
  ::l3267:: do end
  ::l3268:: do end
  ::l3269:: do end
  ::l3270:: do end
  ::l3271:: do end
  ::l3272:: do end
  ::l3273:: do end
  ::l3274:: do end
  ::l3275:: do end
  ::l3276:: do end
  ::l3277:: do end
  ::l3278:: do end
  ::l3279:: do end
  ::l3280:: do end
  ::l3281:: do end
  ::l3282:: do end
  ::l3283:: do end
  ::l3284:: do end
  ::l3285:: do end
  ::l3286:: do end
  ::l3287:: do end
  ::l3288:: do end
  ::l3289:: do end
  ::l3290:: do end
  ::l3291:: do end
  ::l3292:: do end
  ::l3293:: do end
  ::l3294:: do end
  ::l3295:: do end
  ::l3296:: do end
  ::l3297:: do end
  ::l3298:: do end
  ::l3299:: do end
  ::l3300:: do end
  ::l3301:: do end
  ::l3302:: do end
  ::l3303:: do end
  ::l3304:: do end
  ::l3305:: do end
  ::l3306:: do end
  ::l3307:: do end
  ::l3308:: do end
  ::l3309:: do end
  ::l3310:: do end
  ::l3311:: do end
  ::l3312:: do end
  ::l3313:: do end
  ::l3314:: do end
  ::l3315:: do end
  ::l3316:: do end
  ::l3317:: do end
  ::l3318:: do end
  ::l3319:: do end
  ::l3320:: do end
  ::l3321:: do end
  ::l3322:: do end
  ::l3323:: do end
  ::l3324:: do end
  ::l3325:: do end
  ::l3326:: do end
  ::l3327:: do end
  ::l3328:: do end
  ::l3329:: do end
  ::l3330:: do end
  ::l3331:: do end
  ::l3332:: do end
  ::l3333:: do end
  ::l3334:: do end
  ::l3335:: do end
  ::l3336:: do end
  ::l3337:: do end
  ::l3338:: do end
  ::l3339:: do end
  ::l3340:: do end
  ::l3341:: do end
  ::l3342:: do end
  ::l3343:: do end
  ::l3344:: do end
  ::l3345:: do end
  ::l3346:: do end
  ::l3347:: do end
  ::l3348:: do end
  ::l3349:: do end
  ::l3350:: do end
  ::l3351:: do end
  ::l3352:: do end
  ::l3353:: do end
  ::l3354:: do end
  ::l3355:: do end
  ::l3356:: do end
  ::l3357:: do end
  ::l3358:: do end
  ::l3359:: do end
  ::l3360:: do end
  ::l3361:: do end
  ::l3362:: do end
  ::l3363:: do end
  ::l3364:: do end
  ::l3365:: do end
  ::l3366:: do end
  ::l3367:: do end
  ::l3368:: do end
  ::l3369:: do end
  ::l3370:: do end
  ::l3371:: do end
  ::l3372:: do end
  ::l3373:: do end
  ::l3374:: do end
  ::l3375:: do end
  ::l3376:: do end
  ::l3377:: do end
  ::l3378:: do end
  ::l3379:: do end
  ::l3380:: do end
  ::l3381:: do end
  ::l3382:: do end
  ::l3383:: do end
  ::l3384:: do end
  ::l3385:: do end
  ::l3386:: do end
  ::l3387:: do end
  ::l3388:: do end
  ::l3389:: do end
  ::l3390:: do end
  ::l3391:: do end
  ::l3392:: do end
  ::l3393:: do end
  ::l3394:: do end
  ::l3395:: do end
  ::l3396:: do end
  ::l3397:: do end
  ::l3398:: do end
  ::l3399:: do end
  ::l3400:: do end
  ::l3401:: do end
  ::l3402:: do end
  ::l3403:: do end
  ::l3404:: do end
  ::l3405:: do end
  ::l3406:: do end
  ::l3407:: do end
  ::l3408:: do end
  ::l3409:: do end
  ::l3410:: do end
  ::l3411:: do end
  ::l3412:: do end
  ::l3413:: do end
  ::l3414:: do end
  ::l3415:: do end
  ::l3416:: do end
  ::l3417:: do end
  ::l3418:: do end
  ::l3419:: do end
  ::l3420:: do end
  ::l3421:: do end
  ::l3422:: do end
  ::l3423:: do end
  ::l3424:: do end
  ::l3425:: do end
  ::l3426:: do end
  ::l3427:: do end
  ::l3428:: do end
  ::l3429:: do end
  ::l3430:: do end
  ::l3431:: do end
  ::l3432:: do end
  ::l3433:: do end
  ::l3434:: do end
  ::l3435:: do end
  ::l3436:: do end
  ::l3437:: do end
  ::l3438:: do end
  ::l3439:: do end
  ::l3440:: do end
  ::l3441:: do end
  ::l3442:: do end
  ::l3443:: do end
  ::l3444:: do end
  ::l3445:: do end
  ::l3446:: do end
  ::l3447:: do end
  ::l3448:: do end
  ::l3449:: do end
  ::l3450:: do end
  ::l3451:: do end
  ::l3452:: do end
  ::l3453:: do end
  ::l3454:: do end
  ::l3455:: do end
  ::l3456:: do end
  ::l3457:: do end
  ::l3458:: do end
  ::l3459:: do end
  ::l3460:: do end
  ::l3461:: do end
  ::l3462:: do end
  ::l3463:: do end
  ::l3464:: do end
  ::l3465:: do end
  ::l3466:: do end
  ::l3467:: do end
  ::l3468:: do end
  ::l3469:: do end
  ::l3470:: do end
  ::l3471:: do end
  ::l3472:: do end
  ::l3473:: do end
  ::l3474:: do end
  ::l3475:: do end
  ::l3476:: do end
  ::l3477:: do end
  ::l3478:: do end
  ::l3479:: do end
  ::l3480:: do end
  ::l3481:: do end
  ::l3482:: do end
  ::l3483:: do end
  ::l3484:: do end
  ::l3485:: do end
  ::l3486:: do end
  ::l3487:: do end
  ::l3488:: do end
  ::l3489:: do end
  ::l3490:: do end
  ::l3491:: do end
  ::l3492:: do end
  ::l3493:: do end
  ::l3494:: do end
  ::l3495:: do end
  ::l3496:: do end
  ::l3497:: do end
  ::l3498:: do end
  ::l3499:: do end
  ::l3500:: do end
  ::l3501:: do end
  ::l3502:: do end
  ::l3503:: do end
  ::l3504:: do end
  ::l3505:: do end
  ::l3506:: do end
  ::l3507:: do end
  ::l3508:: do end
  ::l3509:: do end
  ::l3510:: do end
  ::l3511:: do end
  ::l3512:: do end
  ::l3513:: do end
  ::l3514:: do end
  ::l3515:: do end
  ::l3516:: do end
  ::l3517:: do end
  ::l3518:: do end
  ::l3519:: do end
  ::l3520:: do end
  ::l3521:: do end
  ::l3522:: do end
  ::l3523:: do end
  ::l3524:: do end
  ::l3525:: do end
  ::l3526:: do end
  ::l3527:: do end
  ::l3528:: do end
  ::l3529:: do end
  ::l3530:: do end
  ::l3531:: do end
  ::l3532:: do end
  ::l3533:: do end
  ::l3534:: do end
  ::l3535:: do end
  ::l3536:: do end
  ::l3537:: do end
  ::l3538:: do end
  ::l3539:: do end
  ::l3540:: do end
  ::l3541:: do end
  ::l3542:: do end
  ::l3543:: do end
  ::l3544:: do end
  ::l3545:: do end
  ::l3546:: do end
  ::l3547:: do end
  ::l3548:: do end
  ::l3549:: do end
  ::l3550:: do end
  ::l3551:: do end
  ::l3552:: do end
  ::l3553:: do end
  ::l3554:: do end
  ::l3555:: do end
  ::l3556:: do end
  ::l3557:: do end
  ::l3558:: do end
  ::l3559:: do end
  ::l3560:: do end
  ::l3561:: do end
  ::l3562:: do end
  ::l3563:: do end
  ::l3564:: do end
  ::l3565:: do end
  ::l3566:: do end
  ::l3567:: do end
  ::l3568:: do end
  ::l3569:: do end
  ::l3570:: do end
  ::l3571:: do end
  ::l3572:: do end
  ::l3573:: do end
  ::l3574:: do end
  ::l3575:: do end
  ::l3576:: do end
  ::l3577:: do end
  ::l3578:: do end
  ::l3579:: do end
  ::l3580:: do end
  ::l3581:: do end
  ::l3582:: do end
  ::l3583:: do end
  ::l3584:: do end
  ::l3585:: do end
  ::l3586:: do end
  ::l3587:: do end
  ::l3588:: do end
  ::l3589:: do end
  ::l3590:: do end
  ::l3591:: do end
  ::l3592:: do end
  ::l3593:: do end
  ::l3594:: do end
  ::l3595:: do end
  ::l3596:: do end
  ::l3597:: do end
  ::l3598:: do end
  ::l3599:: do end
  ::l3600:: do end
  ::l3601:: do end
  ::l3602:: do end
  ::l3603:: do end
  ::l3604:: do end
  ::l3605:: do end
  ::l3606:: do end
  ::l3607:: do end
  ::l3608:: do end
  ::l3609:: do end
  ::l3610:: do end
  ::l3611:: do end
  ::l3612:: do end
  ::l3613:: do end
  ::l3614:: do end
  ::l3615:: do end
  ::l3616:: do end
  ::l3617:: do end
  ::l3618:: do end
  ::l3619:: do end
  ::l3620:: do end
  ::l3621:: do end
  ::l3622:: do end
  ::l3623:: do end
  ::l3624:: do end
  ::l3625:: do end
  ::l3626:: do end
  ::l3627:: do end
  ::l3628:: do end
  ::l3629:: do end
  ::l3630:: do end
  ::l3631:: do end
  ::l3632:: do end
  ::l3633:: do end
  ::l3634:: do end
  ::l3635:: do end
  ::l3636:: do end
  ::l3637:: do end
  ::l3638:: do end
  ::l3639:: do end
  ::l3640:: do end
  ::l3641:: do end
  ::l3642:: do end
  ::l3643:: do end
  ::l3644:: do end
  ::l3645:: do end
  ::l3646:: do end
  ::l3647:: do end
  ::l3648:: do end
  ::l3649:: do end
  ::l3650:: do end
  ::l3651:: do end
  ::l3652:: do end
  ::l3653:: do end
  ::l3654:: do end
  ::l3655:: do end
  ::l3656:: do end
  ::l3657:: do end
  ::l3658:: do end
  ::l3659:: do end
  ::l3660:: do end
  ::l3661:: do end
  ::l3662:: do end
  ::l3663:: do end
  ::l3664:: do end
  ::l3665:: do end
  ::l3666:: do end
  ::l3667:: do end
  ::l3668:: do end
  ::l3669:: do end
  ::l3670:: do end
  ::l3671:: do end
  ::l3672:: do end
  ::l3673:: do end
  ::l3674:: do end
  ::l3675:: do end
  ::l3676:: do end
  ::l3677:: do end
  ::l3678:: do end
  ::l3679:: do end
  ::l3680:: do end
  ::l3681:: do end
  ::l3682:: do end
  ::l3683:: do end
  ::l3684:: do end
  ::l3685:: do end
  ::l3686:: do end
  ::l3687:: do end
  ::l3688:: do end
  ::l3689:: do end
  ::l3690:: do end
  ::l3691:: do end
  ::l3692:: do end
  ::l3693:: do end
  ::l3694:: do end
  ::l3695:: do end
  ::l3696:: do end
  ::l3697:: do end
  ::l3698:: do end
  ::l3699:: do end
  ::l3700:: do end
  ::l3701:: do end
  ::l3702:: do end
  ::l3703:: do end
  ::l3704:: do end
  ::l3705:: do end
  ::l3706:: do end
  ::l3707:: do end
  ::l3708:: do end
  ::l3709:: do end
  ::l3710:: do end
  ::l3711:: do end
  ::l3712:: do end
  ::l3713:: do end
  ::l3714:: do end
  ::l3715:: do end
  ::l3716:: do end
  ::l3717:: do end
  ::l3718:: do end
  ::l3719:: do end
  ::l3720:: do end
  ::l3721:: do end
  ::l3722:: do end
  ::l3723:: do end
  ::l3724:: do end
  ::l3725:: do end
  ::l3726:: do end
  ::l3727:: do end
  ::l3728:: do end
  ::l3729:: do end
  ::l3730:: do end
  ::l3731:: do end
  ::l3732:: do end
  ::l3733:: do end
  ::l3734:: do end
  ::l3735:: do end
  ::l3736:: do end
  ::l3737:: do end
  ::l3738:: do end
  ::l3739:: do end
  ::l3740:: do end
  ::l3741:: do end
  ::l3742:: do end
  ::l3743:: do end
  ::l3744:: do end
  ::l3745:: do end
  ::l3746:: do end
  ::l3747:: do end
  ::l3748:: do end
  ::l3749:: do end
  ::l3750:: do end
  ::l3751:: do end
  ::l3752:: do end
  ::l3753:: do end
  ::l3754:: do end
  ::l3755:: do end
  ::l3756:: do end
  ::l3757:: do end
  ::l3758:: do end
  ::l3759:: do end
  ::l3760:: do end
  ::l3761:: do end
  ::l3762:: do end
  ::l3763:: do end
  ::l3764:: do end
  ::l3765:: do end
  ::l3766:: do end
  ::l3767:: do end
  ::l3768:: do end
  ::l3769:: do end
  ::l3770:: do end
  ::l3771:: do end
  ::l3772:: do end
  ::l3773:: do end
  ::l3774:: do end
  ::l3775:: do end
  ::l3776:: do end
  ::l3777:: do end
  ::l3778:: do end
  ::l3779:: do end
  ::l3780:: do end
  ::l3781:: do end
  ::l3782:: do end
  ::l3783:: do end
  ::l3784:: do end
  ::l3785:: do end
  ::l3786:: do end
  ::l3787:: do end
  ::l3788:: do end
  ::l3789:: do end
  ::l3790:: do end
  ::l3791:: do end
  ::l3792:: do end
  ::l3793:: do end
  ::l3794:: do end
  ::l3795:: do end
  ::l3796:: do end
  ::l3797:: do end
  ::l3798:: do end
  ::l3799:: do end
  ::l3800:: do end
  ::l3801:: do end
  ::l3802:: do end
  ::l3803:: do end
  ::l3804:: do end
  ::l3805:: do end
  ::l3806:: do end
  ::l3807:: do end
  ::l3808:: do end
  ::l3809:: do end
  ::l3810:: do end
  ::l3811:: do end
  ::l3812:: do end
  ::l3813:: do end
  ::l3814:: do end
  ::l3815:: do end
  ::l3816:: do end
  ::l3817:: do end
  ::l3818:: do end
  ::l3819:: do end
  ::l3820:: do end
  ::l3821:: do end
  ::l3822:: do end
  ::l3823:: do end
  ::l3824:: do end
  ::l3825:: do end
  ::l3826:: do end
  ::l3827:: do end
  ::l3828:: do end
  ::l3829:: do end
  ::l3830:: do end
  ::l3831:: do end
  ::l3832:: do end
  ::l3833:: do end
  ::l3834:: do end
  ::l3835:: do end
  ::l3836:: do end
  ::l3837:: do end
  ::l3838:: do end
  ::l3839:: do end
  ::l3840:: do end
  ::l3841:: do end
  ::l3842:: do end
  ::l3843:: do end
  ::l3844:: do end
  ::l3845:: do end
  ::l3846:: do end
  ::l3847:: do end
  ::l3848:: do end
  ::l3849:: do end
  ::l3850:: do end
  ::l3851:: do end
  ::l3852:: do end
  ::l3853:: do end
  ::l3854:: do end
  ::l3855:: do end
  ::l3856:: do end
  ::l3857:: do end
  ::l3858:: do end
  ::l3859:: do end
  ::l3860:: do end
  ::l3861:: do end
  ::l3862:: do end
  ::l3863:: do end
  ::l3864:: do end
  ::l3865:: do end
  ::l3866:: do end
  ::l3867:: do end
  ::l3868:: do end
  ::l3869:: do end
  ::l3870:: do end
  ::l3871:: do end
  ::l3872:: do end
  ::l3873:: do end
  ::l3874:: do end
  ::l3875:: do end
  ::l3876:: do end
  ::l3877:: do end
  ::l3878:: do end
  ::l3879:: do end
  ::l3880:: do end
  ::l3881:: do end
  ::l3882:: do end
  ::l3883:: do end
  ::l3884:: do end
  ::l3885:: do end
  ::l3886:: do end
  ::l3887:: do end
  ::l3888:: do end
  ::l3889:: do end
  ::l3890:: do end
  ::l3891:: do end
  ::l3892:: do end
  ::l3893:: do end
  ::l3894:: do end
  ::l3895:: do end
  ::l3896:: do end
  ::l3897:: do end
  ::l3898:: do end
  ::l3899:: do end
  ::l3900:: do end
  ::l3901:: do end
  ::l3902:: do end
  ::l3903:: do end
  ::l3904:: do end
  ::l3905:: do end
  ::l3906:: do end
  ::l3907:: do end
  ::l3908:: do end
  ::l3909:: do end
  ::l3910:: do end
  ::l3911:: do end
  ::l3912:: do end
  ::l3913:: do end
  ::l3914:: do end
  ::l3915:: do end
  ::l3916:: do end
  ::l3917:: do end
  ::l3918:: do end
  ::l3919:: do end
  ::l3920:: do end
  ::l3921:: do end
  ::l3922:: do end
  ::l3923:: do end
  ::l3924:: do end
  ::l3925:: do end
  ::l3926:: do end
  ::l3927:: do end
  ::l3928:: do end
  ::l3929:: do end
  ::l3930:: do end
  ::l3931:: do end
  ::l3932:: do end
  ::l3933:: do end
  ::l3934:: do end
  ::l3935:: do end
  ::l3936:: do end
  ::l3937:: do end
  ::l3938:: do end
  ::l3939:: do end
  ::l3940:: do end
  ::l3941:: do end
  ::l3942:: do end
  ::l3943:: do end
  ::l3944:: do end
  ::l3945:: do end
  ::l3946:: do end
  ::l3947:: do end
  ::l3948:: do end
  ::l3949:: do end
  ::l3950:: do end
  ::l3951:: do end
  ::l3952:: do end
  ::l3953:: do end
  ::l3954:: do end
  ::l3955:: do end
  ::l3956:: do end
  ::l3957:: do end
  ::l3958:: do end
  ::l3959:: do end
  ::l3960:: do end
  ::l3961:: do end
  ::l3962:: do end
  ::l3963:: do end
  ::l3964:: do end
  ::l3965:: do end
  ::l3966:: do end
  ::l3967:: do end
  ::l3968:: do end
  ::l3969:: do end
  ::l3970:: do end
  ::l3971:: do end
  ::l3972:: do end
  ::l3973:: do end
  ::l3974:: do end
  ::l3975:: do end
  ::l3976:: do end
  ::l3977:: do end
  ::l3978:: do end
  ::l3979:: do end
  ::l3980:: do end
  ::l3981:: do end
  ::l3982:: do end
  ::l3983:: do end
  ::l3984:: do end
  ::l3985:: do end
  ::l3986:: do end
  ::l3987:: do end
  ::l3988:: do end
  ::l3989:: do end
  ::l3990:: do end
  ::l3991:: do end
  ::l3992:: do end
  ::l3993:: do end
  ::l3994:: do end
  ::l3995:: do end
  ::l3996:: do end
  ::l3997:: do end
  ::l3998:: do end
  ::l3999:: do end
  ::l4000:: do end
  ::l4001:: do end
  ::l4002:: do end
  ::l4003:: do end
  ::l4004:: do end
  ::l4005:: do end
  ::l4006:: do end
  ::l4007:: do end
  ::l4008:: do end
  ::l4009:: do end
  ::l4010:: do end
  ::l4011:: do end
  ::l4012:: do end
  ::l4013:: do end
  ::l4014:: do end
  ::l4015:: do end
  ::l4016:: do end
  ::l4017:: do end
  ::l4018:: do end
  ::l4019:: do end
  ::l4020:: do end
  ::l4021:: do end
  ::l4022:: do end
  ::l4023:: do end
  ::l4024:: do end
  ::l4025:: do end
  ::l4026:: do end
  ::l4027:: do end
  ::l4028:: do end
  ::l4029:: do end
  ::l4030:: do end
  ::l4031:: do end
  ::l4032:: do end
  ::l4033:: do end
  ::l4034:: do end
  ::l4035:: do end
  ::l4036:: do end
  ::l4037:: do end
  ::l4038:: do end
  ::l4039:: do end
  ::l4040:: do end
  ::l4041:: do end
  ::l4042:: do end
  ::l4043:: do end
  ::l4044:: do end
  ::l4045:: do end
  ::l4046:: do end
  ::l4047:: do end
  ::l4048:: do end
  ::l4049:: do end
  ::l4050:: do end
  ::l4051:: do end
  ::l4052:: do end
  ::l4053:: do end
  ::l4054:: do end
  ::l4055:: do end
  ::l4056:: do end
  ::l4057:: do end
  ::l4058:: do end
  ::l4059:: do end
  ::l4060:: do end
  ::l4061:: do end
  ::l4062:: do end
  ::l4063:: do end
  ::l4064:: do end
  ::l4065:: do end
  ::l4066:: do end
  ::l4067:: do end
  ::l4068:: do end
  ::l4069:: do end
  ::l4070:: do end
  ::l4071:: do end
  ::l4072:: do end
  ::l4073:: do end
  ::l4074:: do end
  ::l4075:: do end
  ::l4076:: do end
  ::l4077:: do end
  ::l4078:: do end
  ::l4079:: do end
  ::l4080:: do end
  ::l4081:: do end
  ::l4082:: do end
  ::l4083:: do end
  ::l4084:: do end
  ::l4085:: do end
  ::l4086:: do end
  ::l4087:: do end
  ::l4088:: do end
  ::l4089:: do end
  ::l4090:: do end
  ::l4091:: do end
  ::l4092:: do end
  ::l4093:: do end
  ::l4094:: do end
  ::l4095:: do end
  ::l4096:: do end
  ::l4097:: do end
  ::l4098:: do end
  ::l4099:: do end
  ::l4100:: do end
  ::l4101:: do end
  ::l4102:: do end
  ::l4103:: do end
  ::l4104:: do end
  ::l4105:: do end
  ::l4106:: do end
  ::l4107:: do end
  ::l4108:: do end
  ::l4109:: do end
  ::l4110:: do end
  ::l4111:: do end
  ::l4112:: do end
  ::l4113:: do end
  ::l4114:: do end
  ::l4115:: do end
  ::l4116:: do end
  ::l4117:: do end
  ::l4118:: do end
  ::l4119:: do end
  ::l4120:: do end
  ::l4121:: do end
  ::l4122:: do end
  ::l4123:: do end
  ::l4124:: do end
  ::l4125:: do end
  ::l4126:: do end
  ::l4127:: do end
  ::l4128:: do end
  ::l4129:: do end
  ::l4130:: do end
  ::l4131:: do end
  ::l4132:: do end
  ::l4133:: do end
  ::l4134:: do end
  ::l4135:: do end
  ::l4136:: do end
  ::l4137:: do end
  ::l4138:: do end
  ::l4139:: do end
  ::l4140:: do end
  ::l4141:: do end
  ::l4142:: do end
  ::l4143:: do end
  ::l4144:: do end
  ::l4145:: do end
  ::l4146:: do end
  ::l4147:: do end
  ::l4148:: do end
  ::l4149:: do end
  ::l4150:: do end
  ::l4151:: do end
  ::l4152:: do end
  ::l4153:: do end
  ::l4154:: do end
  ::l4155:: do end
  ::l4156:: do end
  ::l4157:: do end
  ::l4158:: do end
  ::l4159:: do end
  ::l4160:: do end
  ::l4161:: do end
  ::l4162:: do end
  ::l4163:: do end
  ::l4164:: do end
  ::l4165:: do end
  ::l4166:: do end
  ::l4167:: do end
  ::l4168:: do end
  ::l4169:: do end
  ::l4170:: do end
  ::l4171:: do end
  ::l4172:: do end
  ::l4173:: do end
  ::l4174:: do end
  ::l4175:: do end
  ::l4176:: do end
  ::l4177:: do end
  ::l4178:: do end
  ::l4179:: do end
  ::l4180:: do end
  ::l4181:: do end
  ::l4182:: do end
  ::l4183:: do end
  ::l4184:: do end
  ::l4185:: do end
  ::l4186:: do end
  ::l4187:: do end
  ::l4188:: do end
  ::l4189:: do end
  ::l4190:: do end
  ::l4191:: do end
  ::l4192:: do end
  ::l4193:: do end
  ::l4194:: do end
  ::l4195:: do end
  ::l4196:: do end
  ::l4197:: do end
  ::l4198:: do end
  ::l4199:: do end
end
