from core.errors import DomainError


class InvalidCredentials(DomainError):
    code = "invalid_credentials"
    status = 400
    title = "Invalid credentials"
