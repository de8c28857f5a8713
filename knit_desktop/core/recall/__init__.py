"""Recall over past DSH conversations (issue 18): layers, events, scopes, payloads."""
