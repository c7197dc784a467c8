"""Test support: reference model servers and helpers shared by floorbench's tests."""
