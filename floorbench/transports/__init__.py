"""floorbench.transports"""
