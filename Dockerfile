# syntax=docker/dockerfile:1
# Skil in one image: the API (default command), the worker, migrations and the load balancer are the
# same code with another command (deploy/compose.yaml, deploy/k8s/skil.yaml). Decision 0172.
ARG NODE_VERSION=20.20.2

# 1. Production dependencies only, installed from the lockfile; build tools stay in this stage.
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY sdk/package.json sdk/
RUN npm ci --omit=dev && npm cache clean --force

# 2. The runtime: the source (TypeScript, run by tsx as `npm run api` does) and those dependencies,
#    owned by root and run as the unprivileged `node` user (uid 1000), so the process cannot change them.
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# No test channel reaches a loopback address in a deployed image (decision 0225).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    WEBHOOK_ALLOW_LOOPBACK=false
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# The one writable place, for the processes that keep state of their own (the simulated acquirer's journal).
RUN mkdir -p /data && chown node:node /data
ENV DATA_DIR=/data
USER node
EXPOSE 3000
# /health answers without PostgreSQL or Temporal; /ready is for the load balancer (compose, Kubernetes).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--import", "tsx", "api/main.ts"]
