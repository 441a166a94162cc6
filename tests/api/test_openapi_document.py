"""The OpenAPI document the server serves is a valid OpenAPI 3.1 document, so any
client generator or validator reads it as written."""

import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator, validate


@pytest.mark.django_db
def test_the_served_document_passes_openapi_spec_validator(api_client):
    response = api_client.get("/api/v1/schema/?format=json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"] == "3.1.0"
    validate(document, cls=OpenAPIV31SpecValidator)
