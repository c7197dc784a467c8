"""The room's participants: playback, recorder, the model's child process, and what a live schedule drives."""
