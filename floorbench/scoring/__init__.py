"""floorbench.scoring"""
