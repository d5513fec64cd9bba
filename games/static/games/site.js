// Every page: a moment the server wrote in UTC (<time data-local>) is said in the
// reader's own time zone and in the page's language, as the messages say it in his.
(function () {
  "use strict";
  var lang = document.documentElement.lang || undefined;
  var format;
  try {
    format = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });
  } catch (e) {
    return;
  }
  document.querySelectorAll("time[data-local]").forEach(function (node) {
    var moment = new Date(node.getAttribute("datetime"));
    if (!isNaN(moment)) node.textContent = format.format(moment);
  });
})();
