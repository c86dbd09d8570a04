/* html_assets.h — the style sheet and script every HTML report carries inline. */
#ifndef HP_HTML_ASSETS_H
#define HP_HTML_ASSETS_H

extern const char hp_html_css[];
extern const char hp_html_js[];

#endif
