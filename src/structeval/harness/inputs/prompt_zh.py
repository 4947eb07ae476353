"""The Chinese prompt texts (``--lang zh``), the same names and placeholders as
:mod:`.prompt_en`.

Written the way a Chinese structural-mechanics textbook says it — 结点, 杆件,
固定铰支座, 可动铰支座 (滚轴支座, or a 支座链杆), 固定端, 定向支座, 铰, 集中力,
均布荷载, 集中力偶, 弯矩, 支座反力 — not translated sentence by sentence. What the
model must *write* is the same in every language: the JSON field names and
values, the units, the sign conventions, the defaults and the worked example
(the example's JSON is shared byte for byte by :mod:`.prompts`).
"""

from __future__ import annotations

from ...model import DEFAULT_A, DEFAULT_E, DEFAULT_IZ
from ...phrasebook import say

INTRO = """\
你是一名结构工程师。你将看到一幅平面结构（梁、刚架或桁架）的图，图中标有支座、铰、荷载和\
尺寸。请把它准确地写成 FrameCalc JSON，使有限元求解器能算出它的支座反力和弯矩。你只需描述\
结构，不必求解。"""

SCHEMA = f"""\
## FrameCalc JSON

一个对象，含四个数组："points"、"links"、"supports"、"loads"。

单位：长度 m，力 kN，分布荷载 kN/m，力矩 kN·m。
坐标：x 向右，y 向上。角度以度计，自 +x 轴逆时针量取：0 = 向右，90 = 向上，180 = 向左，\
270 = 向下。原点可任选（例如取在左下方的支座处），每个坐标都从尺寸线读出。\
{say('convention.two-rows', 'zh')}

id 为字符串，在各自数组内唯一（例如点用 "A"、"B"，杆件用 "L1"）。

### points（点）
{{"id": "A", "x": 0, "y": 0}}：每个结点、支座、自由端、铰、杆件转折或交叉处，以及杆件发生\
变化的地方，都要设一个点。

### links（杆件）
{{"id": "L1", "a": "A", "b": "B", "endA": "rigid", "endB": "hinge"}}：由点 "a"（A 端）到点 \
"b"（B 端）的一根直杆。
- 杆件只在端点处相互连接。杆件中间若有结点、支座或铰，必须在该处把它分成几根杆件；点不得\
落在杆件内部。
- "endA"/"endB" 取 "rigid"（刚接，默认）或 "hinge"（铰接）。"hinge" 释放该杆在这一端的\
弯矩（杆端可自由转动，但仍随该点移动）。{say('convention.hinge-joint', 'zh')}\
{say('convention.hinge-end', 'zh')}
- 桁架按铰接桁架计算：桁架中每根杆件都取 "endA": "hinge" 和 "endB": "hinge"。
- 截面参数 "E"（kN/m²）、"A"（m²）、"Iz"（m⁴）可以省略。省略时每根杆件取 \
E = {DEFAULT_E:.0f}, A = {DEFAULT_A!r}, Iz = {DEFAULT_IZ!r}。除非图中给出了杆件刚度，否则\
不要写这些参数；例如标注为 2EI 的杆件，其 Iz 取默认值的两倍。

### supports（支座）
{{"id": "S1", "at": {{"type": "point", "id": "A"}}, "kind": "pin", "angleDeg": 0}}；\
每个点至多一个支座。图中支座有两种画法：下面所列的符号，或支座链杆（两端各有一个小圆圈的短杆，\
立在阴影地面上；一根链杆只沿其自身方向约束该点）。支座类型（kind）及 "angleDeg" 在图中的含义：
- "pin"（固定铰支座：画在阴影地面上的三角形，或交于该点的两根链杆）：约束 x 和 y 方向的移动，\
可自由转动。angleDeg 不起作用，写 0。
- "fixed"（固定端：杆件嵌固在阴影墙内）：约束 x、y 方向的移动和转动。angleDeg 不起作用，\
写 0。
- "roller"（可动铰支座：带滚轮的三角形，或画成一根支座链杆）：只约束垂直于支承面的方向（即沿\
链杆的方向），可沿支承面滚动，也可转动。angleDeg 是它能滚动的方向：水平地面上的可动铰支座\
或竖直的链杆取 0（约束 y），靠在竖直墙面上的或水平的链杆取 90（约束 x）；支承面倾斜时取该面\
的倾角（链杆垂直于该面）。
- "slider"（定向支座：在两条导轨之间滑动的滑块，或两根平行的链杆）：约束转动和垂直于导轨方向\
（沿链杆方向）的移动，可沿导轨（垂直于链杆）滑动。angleDeg 是被约束的方向（垂直于导轨、沿\
链杆），不是滑动方向：沿水平方向滑动的定向支座取 90（约束 y 和转动），沿竖直方向滑动的取 0\
（约束 x 和转动）。

### loads（荷载）
每个荷载都有 "id"、"kind" 和 "at"：{{"type": "point", "id": ...}} 或 \
{{"type": "link", "id": ...}}。"flip" 取 1 或 -1；-1 使荷载反向（宜按真实方向填写并取 \
flip 1）。

pointLoad —— 集中力，大小为 "value" kN（取正值），方向为 "angleDeg"：
{{"id": "F1", "kind": "pointLoad", "at": {{"type": "point", "id": "C"}}, \
"value": 10, "angleDeg": 270, "angleMode": "world", "flip": 1}}
- "angleMode": "world" 时 angleDeg 自 +x 轴量取（270 = 向下）；"relative" 时自杆件 A→B \
方向量取（作用在点上时，relative 与 world 相同）。集中力请用 "world"。
- 作用在杆件上时要给出位置："refEnd"（"A" 或 "B"）、"offsetMode": "m" 以及 "offset" = \
距该端的距离（m）（也可用 "offsetMode": "percent" 和 "offsetPercent"，取杆长的 0–100）。\
作用在结点上的荷载应放在该点上。

distributedLoad —— 分布荷载，只能作用在杆件上，单位 kN/m，按杆件长度每米计：
{{"id": "Q1", "kind": "distributedLoad", "at": {{"type": "link", "id": "L1"}}, \
"wStart": 5, "wEnd": 5, "fromStart": 0, "fromEnd": 0, "angleDeg": 270, \
"angleMode": "world", "flip": 1}}
- 荷载作用范围从 A 端起 "fromStart" m 处到 B 端前 "fromEnd" m 处（0 和 0 = 满跨）；\
荷载集度由 "wStart"（A 侧）线性变化到 "wEnd"（B 侧）；均布荷载两值相等，三角形或梯形分布\
荷载取不同的值。
- 方向的规定同 pointLoad。垂直于斜杆作用的荷载用 "angleMode": "relative"，"angleDeg" 取 \
90（指向 A→B 方向的左侧）或 270（指向 A→B 方向的右侧）。

bendingMoment —— 集中力偶，大小为 "value" kN·m（取正值），作用在点上，或像 pointLoad \
一样用 refEnd/offsetMode/offset 作用在杆件上：
{{"id": "M1", "kind": "bendingMoment", "at": {{"type": "point", "id": "B"}}, \
"value": 20, "flip": 1}}
- "flip": 1 为逆时针（counter-clockwise），"flip": -1 为顺时针（clockwise）。"""

EXAMPLE = """\
## 示例

图：水平梁 A–B–C–D。A 端为固定端（嵌固在墙内）；B 处为铰（圆圈以 B 为圆心），在 A 右侧 \
3 m；C 处为地面上的可动铰支座，在 B 右侧 3 m；D 为自由端，在 C 右侧 1.5 m。A–B 段作用向下的\
均布荷载 4 kN/m，B 右侧 2 m 处作用向下的集中力 10 kN，D 处作用顺时针的集中力偶 6 kN·m。\
（因此交于 B 的两个杆端，即 L1 的 B 端和 L2 的 A 端，都是 "hinge"。）

<json>
{json}
</json>"""

ANSWER = {
    "standard": """\
## 你的回答

把图中结构的完整模型写在 <json></json> 标签内。标签前可以写几句简短说明；标签内只能是 \
JSON。""",
    "reasoning": """\
## 你的回答

回答前请逐步分析：(1) 给各点命名，并从尺寸线读出它们的坐标；(2) 列出各点之间的杆件和铰；\
(3) 判别每个支座及其 angleDeg；(4) 列出每个荷载的大小、方向和作用位置。逐项与图核对。然后\
把完整模型写在 <json></json> 标签内，放在回答的最后。""",
    "strict": """\
## 你的回答

只回复一个包含完整模型的 <json></json> 块，其他什么都不写：标签前后没有文字，不用 \
Markdown 代码块，JSON 中没有注释。回答前请检查：id 互不重复；每根杆件连接两个已有的点；没有\
点落在杆件内部；每个支座和荷载都指向已有的点或杆件；每个荷载的位置都在它所在的杆件上。""",
}

FEEDBACK = {
    "task": "把这幅图中的结构写成 FrameCalc JSON。",
    "notes": "本图说明：{notes}",
    "dxf": "这里给出的不是图片，而是同一幅图的 DXF（CAD）文件文本，见下文。请从其中的图元"
           "（直线、圆弧、圆、文字、图块、尺寸标注）读出杆件、支座、铰、荷载和尺寸；长度以图中"
           "标注的尺寸数值为准。",
    "sheet": "{statement}本图是一张包含多个视图的图纸：平面图、立面图、荷载表和说明中给出了所需的"
             "全部数据（框架上的荷载请根据荷载表、平面图中的间距和说明求得）。",
    "tiles": "第一张图是整幅图（{width} x {height} 像素）的缩小图。其后是 {count} 张互相重叠的"
             "局部图，每张都标明它在原尺寸图中的像素范围（x 从左边缘起，y 从上边缘起）；小字请看"
             "局部图，整体布置请看整幅图。",
    "zoom": "这张图是整幅图（原尺寸 {width} x {height} 像素）缩小到 {w} x {h} 的结果。"
            "要看清小字，请调用 zoom 函数，给出原尺寸图中的像素框（x 从左边缘起，y 从上边缘起，"
            "以及宽度和高度）；"
            "每次调用都以原分辨率显示图的该部分（若大于 {side} 像素则缩小到 {side} 像素以内）。"
            "最多调用 {limit} 次，然后写出答案。",
    "zoom.tool": "以原分辨率显示图的一部分。框以原尺寸图（{width} x {height}）的像素计："
                 "x 从左边缘起，y 从上边缘起，以及框的宽度和高度。截取的图像在下一条消息中给出。",
    "zoom.x": "框的左边缘，原尺寸像素",
    "zoom.y": "框的上边缘，原尺寸像素",
    "zoom.width": "框的宽度，原尺寸像素",
    "zoom.height": "框的高度，原尺寸像素",
    "zoom.label": "放大 {index}：原尺寸图的 x {x0}-{x1}，y {y0}-{y1}，按 {w} x {h} 像素显示。",
    "zoom.done": "放大 {index}：已截取 x {x0}-{x1}，y {y0}-{y1}（原尺寸 {cw} x {ch} 像素）；"
                 "图像在下一条消息中。",
    "zoom.clamped": "所要的框（x {ax0}-{ax1}，y {ay0}-{ay1}）超出了图（{width} x {height} 像素），"
                    "已截到图内。",
    "zoom.outside": "未截取：框（x {ax0}-{ax1}，y {ay0}-{ay1}）完全在图（{width} x {height} 像素）"
                    "之外；请给出图内的框。",
    "zoom.size": "未截取：宽度和高度必须是正的像素数。",
    "zoom.arguments": "未截取：参数必须是含数字 x、y、width 和 height（原尺寸像素）的 JSON 对象；"
                      "{problem}。",
    "zoom.unknown": "没有函数 {name}；唯一的函数是 zoom(x, y, width, height)。",
    "zoom.limit": "不能再放大：每个答案最多 {limit} 次，已用完。现在请写出最终答案，放在 "
                  "<json></json> 标签内，不要再调用函数。",
    "tile": "局部图 {index}/{count}：x {x0}-{x1}，y {y0}-{y1}（原尺寸）。",
    "tile.scaled": "局部图 {index}/{count}：x {x0}-{x1}，y {y0}-{y1}，按 {w} x {h} 像素显示。",
    "repair.head": "你上一次的回答还不正确：{what}。",
    "repair.tail": "请再仔细看图，把改正后的完整模型写在 <json></json> 标签内。",
    "stage.other": "它与图不符",
    "stage.no_json": "从中读不出 FrameCalc JSON 对象",
    "stage.invalid": "这段 JSON 不是有效的 FrameCalc 模型",
    "stage.geometry": "几何（点和杆件）与图不符",
    "stage.supports": "几何正确，但支座与图不符",
    "stage.releases": "几何和支座正确，但铰（杆端释放）与图不符",
    "stage.loads": "结构正确，但荷载与图不符",
    "no_json.empty": "回答是空的",
    "no_json.none": "回答中找不到 JSON 对象",
    "no_json.not_object": "找到了 JSON，但它不是含 points、links、supports 和 loads 的对象",
    "no_json.think_only": "JSON 只出现在 <think> 推理块内：推理块不算回答，而推理块之外的回答中"
                          "没有 JSON 对象",
    "no_json.hint": "{problem}。请把模型写成一个 JSON 对象，放在 <json></json> 标签内。",
    "analysis_failed": "无法分析这个模型：{error}",
}
