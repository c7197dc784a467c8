"""`floorbench latency`: audio latency through the SFU with chirp probes, and the sound devices' share."""
