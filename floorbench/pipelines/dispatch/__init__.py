"""Scale-out on LiveKit agent dispatch: the protocol, the runner's side, and `floorbench worker`."""
