"""floorbench.processors"""
