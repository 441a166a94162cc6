from django.urls import path

from ledger import apis

urlpatterns = [
    path("me/transactions/", apis.MyTransactionsApi.as_view(), name="my-transactions"),
]
