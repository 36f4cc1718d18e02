"""The application layer between cli/ and mongo/, plan/, apply/: it prints nothing."""
