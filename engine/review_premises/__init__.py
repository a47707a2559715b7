"""Premise review (`python -m engine.review --premises`): is each premise what its
source says?"""
