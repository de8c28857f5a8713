"""Images and videos: the media grid's arithmetic and the thumbnail disk cache."""
