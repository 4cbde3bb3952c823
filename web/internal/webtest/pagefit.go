package webtest

// PageFit is what a browser test measures of a page: its width and its
// window's, where its verdict starts, and the table cells squeezed narrower than
// eight characters of their own font (or than their text, when it is shorter).
type PageFit struct {
	ScrollWidth int      `json:"scrollWidth"`
	InnerWidth  int      `json:"innerWidth"`
	VerdictTop  int      `json:"verdictTop"`
	Squeezed    []string `json:"squeezed"`
}

// MeasurePageFit is the script that measures a PageFit.
const MeasurePageFit = `(() => {
	const ctx = document.createElement("canvas").getContext("2d");
	const squeezed = [];
	for (const cell of document.querySelectorAll("main td, main th")) {
		const style = getComputedStyle(cell);
		const box = cell.getBoundingClientRect();
		if (style.display == "none" || style.visibility == "hidden" || box.width == 0) continue;
		ctx.font = style.font;
		const text = cell.innerText.trim();
		if (text == "") continue;
		const longest = text.split(/\s+/).reduce((a, w) => Math.max(a, ctx.measureText(w).width), 0);
		const need = Math.min(ctx.measureText("00000000").width, ctx.measureText(text).width, Math.max(longest, ctx.measureText("0000").width));
		const inner = box.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
		if (inner + 1 < need) squeezed.push(Math.round(inner) + " px < " + Math.round(need) + " px: " + text.slice(0, 40));
	}
	const v = document.querySelector("[data-testid=verdict-banner], [data-testid=headline]");
	return {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
		verdictTop: v ? Math.round(v.getBoundingClientRect().top + window.scrollY) : -1, squeezed: squeezed.slice(0, 8)};
})()`
