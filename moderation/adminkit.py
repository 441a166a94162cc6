"""Admin actions that ask for a reason first (Django's intermediate-page pattern), shared
by the match, chat and player admins. The selected objects travel in hidden inputs; the
second POST carries `apply` and the validated form."""

from collections.abc import Callable
from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone

from core.errors import DomainError


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=2000,
        help_text="Recorded in the audit trail with your name.",
    )

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError("A reason is required.")
        return reason


class MuteForm(ReasonForm):
    DURATIONS = [
        ("1", "1 hour"),
        ("24", "1 day"),
        ("168", "1 week"),
        ("720", "30 days"),
        ("87600", "10 years"),
    ]
    hours = forms.TypedChoiceField(choices=DURATIONS, coerce=int, initial="24", label="Mute for")

    def until(self):
        return timezone.now() + timedelta(hours=self.cleaned_data["hours"])


def reason_action(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset,
    *,
    title: str,
    apply: Callable[[object, forms.Form], object],
    form_class: type[forms.Form] = ReasonForm,
    done: str = "Done",
) -> HttpResponse | None:
    """Shows a reason form for the selected objects; on its POST runs `apply(obj, form)`
    for each, reporting each success and each refusal."""
    form = form_class(request.POST if "apply" in request.POST else None)
    if "apply" in request.POST and form.is_valid():
        ok = 0
        for obj in queryset:
            try:
                apply(obj, form)
            except DomainError as exc:
                modeladmin.message_user(request, f"{obj}: {exc.detail}", messages.ERROR)
            else:
                ok += 1
        if ok:
            modeladmin.message_user(request, f"{done}: {ok} of {len(queryset)}.", messages.SUCCESS)
        return None  # back to the changelist
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "objects": list(queryset),
        "form": form,
        "action": request.POST.get("action", ""),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "opts": modeladmin.model._meta,
    }
    return TemplateResponse(request, "admin/moderation/reason_action.html", context)
