// Test instrumentation, injected by tests/browser before the page's scripts (never served): a copy
// of what the kiosk draws, read from the page's websocket, so the test can wait for a word on the
// screen and click where it is. A minimal terminal: cursor moves (CSI H), line feeds, printable
// characters; colours and other sequences are skipped.
(() => {
  const Native = window.WebSocket;
  const decoder = new TextDecoder();
  const screen = { rows: 24, cols: 80, grid: [], row: 0, col: 0 };
  function clear() {
    screen.grid = Array.from({ length: screen.rows }, () => Array(screen.cols).fill(" "));
  }
  clear();
  function feed(text) {
    let i = 0;
    while (i < text.length) {
      const ch = text[i];
      if (ch === "\x1b") {
        const rest = text.slice(i, i + 64);
        let m = /^\x1b\[([0-9;?<>=]*)([ -\/]*)([@-~])/.exec(rest);
        if (m) {
          if (m[3] === "H" && !m[1].startsWith("?")) {
            const [r, c] = (m[1] || "1;1").split(";").map((v) => parseInt(v || "1", 10));
            screen.row = r - 1;
            screen.col = (c || 1) - 1;
          } else if (m[3] === "J" && m[1] === "2") {
            clear();
          }
          i += m[0].length;
          continue;
        }
        m = /^\x1b\][^\x07\x1b]*(\x07|\x1b\\)/.exec(text.slice(i, i + 4096));
        if (m) { i += m[0].length; continue; }
        i += /^\x1b[()][A-Z0-9]/.test(rest) ? 3 : 2;
        continue;
      }
      if (ch === "\r") screen.col = 0;
      else if (ch === "\n") screen.row += 1;
      else if (ch >= " ") {
        if (screen.row >= 0 && screen.row < screen.rows && screen.col >= 0 && screen.col < screen.cols) {
          screen.grid[screen.row][screen.col] = ch;
        }
        screen.col += 1;
      }
      i += 1;
    }
  }
  window.__screenLines = () => screen.grid.map((r) => r.join(""));
  window.__screenSize = () => [screen.cols, screen.rows];
  function Tapped(url, protocols) {
    const ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
    const q = new URL(url).searchParams;
    screen.cols = parseInt(q.get("width") || "80", 10);
    screen.rows = parseInt(q.get("height") || "24", 10);
    clear();
    ws.addEventListener("message", (e) => {
      if (typeof e.data !== "string") feed(decoder.decode(new Uint8Array(e.data), { stream: true }));
    });
    const send = ws.send.bind(ws);
    ws.send = (data) => {
      // The page tells the app its size after connecting: follow it.
      try {
        const msg = JSON.parse(data);
        if (msg[0] === "resize") { screen.cols = msg[1].width; screen.rows = msg[1].height; clear(); }
      } catch (err) {}
      return send(data);
    };
    return ws;
  }
  Tapped.prototype = Native.prototype;
  for (const k of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) Tapped[k] = Native[k];
  window.WebSocket = Tapped;
})();
