"""floorbench: live, real-time evaluation of full-duplex spoken dialogue systems over WebRTC."""

__version__ = "0.1.0"
