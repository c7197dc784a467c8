"""`floorbench demo` and `floorbench devices`: a system under test through this machine's microphone and speakers."""
