# Packaging rules land with the packaging issue.
