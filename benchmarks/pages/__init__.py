"""The pages' figures of issue 22 (docs/pages.md): Lighthouse on every page, and the frame rate.

``python -m benchmarks.pages.lighthouse`` (``make lighthouse``) runs the npm
Lighthouse on each page of a fresh server with Debian's Chromium;
``python -m benchmarks.pages.frames`` (``make frames``) counts the frames of a
game's shot animations and the page's long tasks.  :mod:`.figures` holds their
pure parts (a report's row, the verdicts, the frame statistics), :mod:`.site`
the server, the browser and the data the pages need.
"""
