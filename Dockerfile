# The demo game server: builds the browser client and serves it plus the socket.io
# netcode endpoint (path /netcode) and /healthz on one port. See docs/deploy.md.
FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=development \
    PORT=3000 \
    HOST=0.0.0.0 \
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
COPY package.json package-lock.json ./
# The workspaces' manifests: npm ci installs them with the root.
COPY examples/starter/package.json examples/starter/
COPY examples/canvas-2d/package.json examples/canvas-2d/
# Dev dependencies are needed: the server runs from TypeScript with tsx and vite builds the client.
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build:demo
EXPOSE 3000
# One process, tsx as a loader (not the tsx CLI, whose signal relay SIGKILLs a child that does not
# acknowledge SIGTERM within 30 ms on a busy host); the server handles SIGTERM (tells clients, exits 0).
CMD ["node", "--import", "tsx", "demo/server/main.ts"]
