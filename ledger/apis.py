from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.pagination import IdCursorPagination
from ledger import selectors
from ledger.serializers import TransactionOutput, transaction_payload


class TransactionPagination(IdCursorPagination):
    page_size = 50
    max_page_size = 200

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_page_size)
        return parameters


class MyTransactionsApi(APIView):
    token_scope = "read"

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
