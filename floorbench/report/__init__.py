"""floorbench.report"""
