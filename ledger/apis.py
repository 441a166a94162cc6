from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ledger import selectors
from ledger.serializers import TransactionOutput, transaction_payload


class TransactionPagination(CursorPagination):
    ordering = "-id"  # unique and stable: newest first
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request: Request) -> int:
        """Strict: `page_size` is one integer from 1 to 200, or absent (50)."""
        values = request.query_params.getlist(self.page_size_query_param)
        if not values:
            return self.page_size
        value = values[0]
        if len(values) > 1 or not value.isdigit() or not 1 <= int(value) <= self.max_page_size:
            raise ValidationError(
                {"page_size": [f"Give one whole number from 1 to {self.max_page_size}."]},
                code="invalid",
            )
        return int(value)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_page_size)
        return parameters


class MyTransactionsApi(APIView):
    pagination_class = TransactionPagination

    @extend_schema(
        responses={200: TransactionOutput(many=True)},
        tags=["ledger"],
        summary="Your chip history, newest first",
        description=(
            "Every transfer into or out of your wallet, newest first, cursor-paginated "
            "(`next`/`previous` links; `page_size` up to 200). `amount` is signed from "
            "your wallet's point of view."
        ),
    )
    def get(self, request: Request) -> Response:
        wallet = selectors.wallet_get(user=request.user)
        paginator = self.pagination_class()
        queryset = selectors.transfers_for_wallet(user=request.user)
        page = paginator.paginate_queryset(queryset, request, view=self)
        wallet_id = wallet.pk if wallet is not None else None
        data = [transaction_payload(t, wallet_id=wallet_id) for t in page]
        return paginator.get_paginated_response(TransactionOutput(data, many=True).data)
