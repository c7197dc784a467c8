"""floorbench.scenarios"""
