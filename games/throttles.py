from accounts.throttles import PerUserThrottle


class ChatThrottle(PerUserThrottle):
    scope = "chat"
