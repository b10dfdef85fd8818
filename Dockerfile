# Production image: compiled TypeScript on Node 20, production dependencies only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 is a native module; its build needs a compiler when no prebuilt binary is reachable.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY projections ./projections
# The build copies mermaid's one bundle into dist/console-assets; mermaid and its dependency tree are
# development dependencies, gone after the prune.
RUN npm run build && npm prune --omit=dev
# /docs serves one file of @scalar/api-reference, its self-contained browser bundle; the package's
# sources and its Vue dependency tree (about 160 MB) stay out of the image.
RUN keep=node_modules/@scalar/api-reference \
 && mkdir -p /tmp/keep/dist/browser \
 && cp $keep/package.json /tmp/keep/ && cp $keep/dist/index.js /tmp/keep/dist/ \
 && cp $keep/dist/browser/standalone.js /tmp/keep/dist/browser/ \
 && rm -rf node_modules/@scalar && mkdir -p node_modules/@scalar && mv /tmp/keep $keep

FROM node:20-bookworm-slim
ENV NODE_ENV=production
# One malloc arena for every thread, not one per thread: about 16 MB less resident
# (docs/operations.md, Memory).
ENV MALLOC_ARENA_MAX=1
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY src/catalog-data ./src/catalog-data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:3000/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# Node's flags as in `npm start` (docs/operations.md, Memory; test/unit/start-command.test.ts).
CMD ["node", "--max-old-space-size=512", "--max-semi-space-size=8", "--heap-growing-percent=40", "--v8-pool-size=1", "dist/src/main.js"]
