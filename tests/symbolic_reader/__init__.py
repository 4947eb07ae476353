"""The symbolic reader: rebuild a task's FrameCalc model from its drawing alone.

This is the readability proof behind every shipped task: the reader looks at the
layout record the way a careful student looks at the figure, writes the model
down, and the test scores it against the ground truth with
:func:`structeval.scoring.score`. Every task must score exactly 1.0. When one does
not, the drawing lacks (or hides) information: fix the renderer or the generator.
Never loosen the reader to pass, and never special-case a task.

What the reader may use (the rules that make it an honest proof)
----------------------------------------------------------------
* Only the *picture*: per drawn item its glyph (:mod:`structeval.render.scene.glyphs`:
  member ends, hinge circles, which support symbol stands where and which way its
  ground lies, arrow tails and tips, rows of arrows, arcs with their heads, angle
  marks, dimension chains with their ticks and extension lines), its kind, the
  texts with their boxes, and the image size (:func:`view.reader_view` strips all
  else) — plus the task's notes (e.g. "all members of this truss are pin-jointed").
* Never: owner ids, roles (they can name a model's end A/B), anchors (the
  renderer's own knowledge of where things belong), the model, the renderer's
  scale, or any private renderer state.
* Topology and order come from pixel positions: which member ends meet, which
  symbol stands at which joint, which way an arrow points, which member a row of
  arrows stands on, which way an arc turns.
* Every *number* comes from drawn text: dimension values, load values, angles
  (:mod:`.texts` parses them, in one place). Pixel geometry only decides which text
  belongs where (a value text to the nearest glyph it can label, a dimension text
  to the chain line nearest to it and the interval its centre lies in) and exact
  facts a reader sees: an arrow visibly vertical or horizontal, a member visibly
  along an axis or a direction square/parallel to a member (within half a
  degree), a roller's ground visibly horizontal. A slanted force or support
  needs its angle mark's text; a pixel angle is never a value.
* A coordinate is read from a tick whose extension line runs to the place (or is
  drawn on through it, across members), or to a place in plain sight of it along
  the tick's line (nothing drawn between but the places' own things: no member
  crossing, no other joint); a joint also takes a coordinate through a member
  visibly along that axis from a joint that has it.
* Exact deductions an expert makes, one module each, used only where the picture
  shows their premise: :mod:`.repeats` ("6 × 2 m" over six intervals),
  :mod:`.levels` (a level mark's height), :mod:`.symmetry` (with a symmetry mark:
  a place's mirror image gives its coordinates; the axis's x from the tick on
  it), :mod:`.implied` (a joint visibly on a straight chord between two known
  joints: its y from its x), :mod:`.slopes` (a rise:run triangle on a member: the
  heights along its line). Numbers still come only from texts; a legend's
  symbols and the unit note ("Dimensions in mm", "尺寸单位：mm") are read by
  :mod:`.texts`. In ``full`` dimensioning none of these devices is drawn, so
  nothing is deduced.
* A beam drawn in two rows (two break marks) is read row by row and joined where the
  marks say (:mod:`.continued`): the rows are taken apart along the band of empty
  paper between them, and the lower row's cut joint is laid on the upper row's.
* Words state facts, in English or Chinese: the task's notes and the notes block
  printed under a figure are read for what they say (:data:`.texts.NOTE_FACTS`, e.g.
  that a truss is pin-jointed), never for numbers. On an exam page, the page's own
  texts (statement, caption, header; items of kind ``page``) are not the figure's and
  are not read.

For the next presentations (Chinese texts, a second symbol set) extend the modules
that own the concern: new text forms in :mod:`.texts`, new symbols in
:mod:`.supports`; keep these rules.
"""

from .build import ReadError, read_drawing

__all__ = ["ReadError", "read_drawing"]
