/*
 * botwire web chat widget. Embed with:
 *   <script src="<base>/v2/web/widget.js" data-app-id="<app_id>" async></script>
 * Optional attributes: data-title (the dialog's name, default "Chat"),
 * data-button-label (the bubble's name, default "Open chat").
 * No dependencies; styles live in a shadow root so the page's CSS and ours do not mix.
 */
(function () {
  'use strict';
  var script = document.currentScript || document.querySelector('script[data-app-id]');
  if (!script) return;
  var appId = script.getAttribute('data-app-id');
  var base = new URL(script.src, location.href).origin;
  var title = script.getAttribute('data-title') || 'Chat';
  var storeKey = 'botwire:' + appId;
  var session = null;
  var source = null;
  var lastId = '';
  var seen = {};
  var retryMs = 1000;

  function load() {
    try {
      return JSON.parse(localStorage.getItem(storeKey)) || null;
    } catch {
      return null;
    }
  }
  function save(s) {
    try {
      localStorage.setItem(storeKey, JSON.stringify(s));
    } catch {
      /* private mode */
    }
  }
  function api(path, body, token) {
    var headers = { 'content-type': 'application/json' };
    if (token) headers.authorization = 'Bearer ' + token;
    return fetch(base + path, {
      method: 'POST',
      headers: headers,
      body: JSON.stringify(body),
    }).then(function (r) {
      return r
        .json()
        .catch(function () {
          return {};
        })
        .then(function (j) {
          if (!r.ok) {
            var e = new Error((j.error && j.error.code) || String(r.status));
            e.status = r.status;
            throw e;
          }
          return j;
        });
    });
  }
  function newId() {
    return crypto.randomUUID
      ? crypto.randomUUID()
      : Date.now().toString(36) + Math.random().toString(36).slice(2);
  }
  // A token is renewed when less than a day is left; an expired one starts a new visitor. One
  // request at a time: the stream and a first message asking at once would otherwise make two
  // visitors, and the message's echo and answer would go to the one the stream is not reading.
  var pending = null;
  function ensureSession(force) {
    if (pending) return pending;
    var s = session || load();
    var left = s ? Date.parse(s.expires_at) - Date.now() : 0;
    if (s && !force && left > 864e5) return Promise.resolve((session = s));
    var path = '/v2/web/' + encodeURIComponent(appId) + '/sessions';
    var renew = s && left > 0 ? api(path, { token: s.token }) : Promise.reject(new Error('none'));
    pending = renew
      .catch(function () {
        return api(path, {});
      })
      .then(
        function (n) {
          pending = null;
          save((session = n));
          return n;
        },
        function (e) {
          pending = null;
          throw e;
        },
      );
    return pending;
  }

  var host = document.createElement('div');
  var root = host.attachShadow({ mode: 'open' });
  root.innerHTML =
    '<style>' +
    ':host{all:initial;font:15px/1.4 system-ui,sans-serif;color:#111}' +
    '.open{position:fixed;right:20px;bottom:20px;width:56px;height:56px;border-radius:50%;border:0;background:#2458d6;color:#fff;display:flex;align-items:center;justify-content:center;cursor:pointer;box-shadow:0 2px 8px #0004}' +
    '.dlg{position:fixed;right:20px;bottom:88px;width:min(360px,calc(100vw - 40px));height:min(520px,calc(100vh - 120px));display:flex;flex-direction:column;background:#fff;border-radius:12px;box-shadow:0 4px 24px #0005;overflow:hidden}' +
    '.dlg[hidden]{display:none}header{display:flex;justify-content:space-between;align-items:center;padding:10px 14px;background:#2458d6;color:#fff;font-weight:600}' +
    'header button{background:none;border:0;color:#fff;font-size:20px;cursor:pointer}' +
    '.log{flex:1;overflow-y:auto;padding:10px;display:flex;flex-direction:column;gap:6px}' +
    '.m{max-width:85%;padding:7px 11px;border-radius:12px;background:#eef1f6;white-space:pre-wrap;word-wrap:break-word}' +
    '.in{align-self:flex-end;background:#2458d6;color:#fff}.m img{max-width:100%;border-radius:8px;display:block}' +
    '.opts{display:flex;flex-wrap:wrap;gap:6px;margin-top:6px}.opts button{border:1px solid #2458d6;background:#fff;color:#2458d6;border-radius:14px;padding:4px 10px;cursor:pointer}' +
    '.opts h4{width:100%;margin:4px 0 0;font-size:13px}form{display:flex;border-top:1px solid #ddd}' +
    'input{flex:1;border:0;padding:12px;font:inherit}button.send{border:0;background:none;color:#2458d6;font-weight:600;padding:0 14px;cursor:pointer}' +
    '.note{margin:0;padding:0 10px;color:#8a1c1c;font-size:13px}.note:not(:empty){padding:6px 10px}' +
    '.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}:focus-visible{outline:2px solid #f5a623}' +
    '</style>' +
    '<button class="open" type="button" aria-expanded="false" aria-controls="bw-dialog">' +
    // A drawn bubble, not an emoji: a system without an emoji font showed an empty box.
    '<svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true" focusable="false"><path fill="currentColor" d="M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z"/></svg></button>' +
    '<div class="dlg" id="bw-dialog" role="dialog" hidden>' +
    '<header><span id="bw-title"></span><button type="button" class="close" aria-label="Close chat">\u00D7</button></header>' +
    '<div class="log" role="log" aria-live="polite" aria-label="Messages"></div>' +
    '<p class="note" role="status"></p>' +
    '<form><label class="vh" for="bw-text">Message</label><input id="bw-text" autocomplete="off" maxlength="4096">' +
    '<button class="send" type="submit">Send</button></form></div>';
  var openBtn = root.querySelector('.open');
  var dialog = root.querySelector('.dlg');
  var log = root.querySelector('.log');
  var input = root.querySelector('input');
  var note = root.querySelector('.note');
  openBtn.setAttribute('aria-label', script.getAttribute('data-button-label') || 'Open chat');
  root.getElementById('bw-title').textContent = title;
  dialog.setAttribute('aria-labelledby', 'bw-title');

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  // The titles of the options shown, by id: a press is echoed by its title, not its id.
  var titles = {};
  function option(parent, label, body) {
    titles[body.button_id || body.list_row_id] = label;
    var b = el('button', '', label);
    b.type = 'button';
    b.onclick = function () {
      send(body, label);
    };
    parent.appendChild(b);
  }
  function render(m) {
    if (seen[m.id]) return;
    seen[m.id] = 1;
    var chose = m.choice_id ? '\u2192 ' + (titles[m.choice_id] || m.choice_id) : '';
    var box = el('div', 'm ' + m.direction, m.text || chose);
    if (m.image) {
      var img = el('img');
      img.src = m.image.url;
      img.alt = m.image.caption || 'Image';
      box.appendChild(img);
      if (m.image.caption) box.appendChild(el('div', '', m.image.caption));
    }
    if (m.document) {
      var a = el('a', '', m.document.filename || m.document.caption || 'Document');
      a.href = m.document.url;
      a.target = '_blank';
      a.rel = 'noopener';
      box.appendChild(a);
    }
    var opts = el('div', 'opts');
    (m.buttons || []).forEach(function (b) {
      option(opts, b.title, { button_id: b.id });
    });
    if (m.list) {
      opts.setAttribute('role', 'group');
      opts.setAttribute('aria-label', m.list.button);
      m.list.sections.forEach(function (s) {
        if (s.title) opts.appendChild(el('h4', '', s.title));
        s.rows.forEach(function (r) {
          option(opts, r.title, { list_row_id: r.id });
        });
      });
    }
    if (opts.firstChild) box.appendChild(opts);
    log.appendChild(box);
    log.scrollTop = log.scrollHeight;
  }
  // The same client message id on every try: the service accepts it once.
  function send(body, shown, id, tries) {
    body.client_message_id = id = id || newId();
    return ensureSession()
      .then(function (s) {
        return api('/v2/callback/web/' + encodeURIComponent(appId), body, s.token);
      })
      .catch(function (e) {
        if (e.status === 401) {
          session = null;
          save(null);
        }
        if ((tries || 0) < 5 && (!e.status || e.status >= 500 || e.status === 401)) {
          return new Promise(function (r) {
            setTimeout(r, 1000 * Math.pow(2, tries || 0));
          }).then(function () {
            return send(body, shown, id, (tries || 0) + 1);
          });
        }
        log.appendChild(el('div', 'm', 'Not sent: ' + shown));
      });
  }
  var typingTimer;
  // EventSource resumes with Last-Event-ID by itself; a new one (after a new token) is given it.
  function connect() {
    ensureSession(false).then(
      function (s) {
        if (source) source.close();
        var url =
          base +
          '/v2/web/' +
          encodeURIComponent(appId) +
          '/events?token=' +
          encodeURIComponent(s.token) +
          (lastId ? '&last_event_id=' + encodeURIComponent(lastId) : '');
        source = new EventSource(url);
        source.onopen = function () {
          note.textContent = '';
        };
        // An agent typing during a handoff: shown for a few seconds or until their message; an
        // old one replayed on reconnect is ignored.
        source.addEventListener('typing', function (e) {
          try {
            if (Date.now() - Date.parse(JSON.parse(e.data).at) > 10000) return;
          } catch {
            return;
          }
          note.textContent = 'typing…';
          clearTimeout(typingTimer);
          typingTimer = setTimeout(function () {
            if (note.textContent === 'typing…') note.textContent = '';
          }, 6000);
        });
        source.addEventListener('message', function (e) {
          retryMs = 1000;
          lastId = e.lastEventId;
          if (note.textContent === 'typing…') note.textContent = '';
          try {
            render(JSON.parse(e.data));
          } catch {
            /* not ours */
          }
        });
        source.onerror = function () {
          if (source.readyState !== 2) return;
          setTimeout(function () {
            ensureSession(true).then(connect, connect);
          }, retryMs);
          retryMs = Math.min(retryMs * 2, 60000);
        };
      },
      function () {
        // A refused origin looks like a network failure to the page (no CORS headers on the
        // refusal), so one message covers both; the widget keeps trying in case it was the network.
        note.textContent = 'The chat cannot be reached right now.';
        setTimeout(connect, (retryMs = Math.min(retryMs * 2, 60000)));
      },
    );
  }

  function toggle(show) {
    dialog.hidden = !show;
    openBtn.setAttribute('aria-expanded', String(show));
    if (show) {
      if (!source) connect();
      input.focus();
    } else openBtn.focus();
  }
  openBtn.onclick = function () {
    toggle(dialog.hidden);
  };
  root.querySelector('.close').onclick = function () {
    toggle(false);
  };
  dialog.addEventListener('keydown', function (e) {
    if (e.key === 'Escape') toggle(false);
  });
  root.querySelector('form').onsubmit = function (e) {
    e.preventDefault();
    var text = input.value.trim();
    if (!text) return;
    input.value = '';
    send({ text: text }, text);
  };
  (document.body || document.documentElement).appendChild(host);
})();
