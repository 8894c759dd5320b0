"""The one error of evaluator.video."""


class VideoError(Exception):
    """A video file is missing, unreadable or holds no decodable video."""
