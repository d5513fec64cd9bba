/* A stand-in for Telegram's telegram-web-app.js in the browser tests (no internet here).

   It does what the page relies on, as Telegram's script does: it reads the launch
   parameters Telegram puts in the address's fragment (tgWebAppData, the signed
   initData; tgWebAppThemeParams, the theme) and offers Telegram.WebApp with initData,
   the theme as --tg-theme-* CSS variables, ready, expand, the back button and haptic
   feedback. What the page asked of it is kept in window.telegramCalls for the tests. */
(function () {
  "use strict";
  var calls = (window.telegramCalls = []);
  var params = {};
  window.location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
    var at = pair.indexOf("=");
    if (at > 0) params[pair.slice(0, at)] = decodeURIComponent(pair.slice(at + 1));
  });
  var theme = {};
  try { theme = JSON.parse(params.tgWebAppThemeParams || "{}"); } catch (e) { theme = {}; }
  Object.keys(theme).forEach(function (key) {
    document.documentElement.style.setProperty("--tg-theme-" + key.replace(/_/g, "-"), theme[key]);
  });
  var backHandlers = [];

  function record(name) {
    return function () { calls.push([name].concat(Array.prototype.slice.call(arguments))); };
  }

  window.Telegram = {
    WebApp: {
      initData: params.tgWebAppData || "",
      version: params.tgWebAppVersion || "7.0",
      platform: params.tgWebAppPlatform || "unknown",
      themeParams: theme,
      colorScheme: "light",
      ready: record("ready"),
      expand: record("expand"),
      BackButton: {
        isVisible: false,
        show: function () { this.isVisible = true; calls.push(["BackButton.show"]); },
        hide: function () { this.isVisible = false; calls.push(["BackButton.hide"]); },
        onClick: function (handler) { backHandlers.push(handler); },
      },
      HapticFeedback: {
        impactOccurred: record("HapticFeedback.impactOccurred"),
        notificationOccurred: record("HapticFeedback.notificationOccurred"),
        selectionChanged: record("HapticFeedback.selectionChanged"),
      },
    },
  };
  /* What a press of Telegram's own back button does. */
  window.pressTelegramBackButton = function () { backHandlers.forEach(function (handler) { handler(); }); };
})();
