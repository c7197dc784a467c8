"""floorbench.pipelines"""
