"""Video in the room: the user's camera, the recorder's video, frame markers and the video's timing."""
