from django.urls import path

from apps.portal import views

app_name = "portal"
urlpatterns = [
    path("", views.business_home, name="home"),
]
