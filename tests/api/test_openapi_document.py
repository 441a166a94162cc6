"""The OpenAPI document the server serves is a valid OpenAPI 3.1 document, so any
client generator or validator reads it as written."""

import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator, validate

from games.engine.presets import PRESETS


@pytest.mark.django_db
def test_the_served_document_passes_openapi_spec_validator(api_client):
    response = api_client.get("/api/v1/schema/?format=json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"] == "3.1.0"
    validate(document, cls=OpenAPIV31SpecValidator)


@pytest.mark.django_db
def test_the_description_counts_and_names_every_preset(api_client):
    description = api_client.get("/api/v1/schema/?format=json").json()["info"]["description"]
    words = {5: "five", 6: "six", 7: "seven", 8: "eight"}
    assert f"{words[len(PRESETS)]} rule systems" in description
    assert all(name in description for name in PRESETS)
