"""A picture of a routed layout: a GDS drawn to PNG with KLayout's Python module.

:func:`render_gds` draws every layer of a GDS file through all levels of its hierarchy, without
labels or grid, into a PNG whose aspect ratio is the layout's. The colours come from a KLayout
layer-properties file (``.lyp``, e.g. the PDK's, :func:`fhe_hw.asic.pdk.klayout_lyp`) when one
is given, else from KLayout's default palette. Cells that the GDS leaves empty (Debian's qflow
has only LEF abstracts of the OSU cells, no layout) can be drawn as their LEF outlines, under
the routing, so that the picture shows where the cells are placed.

:func:`layout_picture` writes ``<name>.png`` beside ``<name>.gds`` for ``fhe-hw harden`` and
turns a failure into a one-line reason, so that a rendering problem never costs the GDS.

The ``klayout`` module comes with the pip extra ``asic`` (``pip install fhe-hw[asic]``); it
renders without a display.
"""

from pathlib import Path

__all__ = ["OUTLINE_LAYER", "render_gds", "layout_picture"]

# The layer (a name only, no GDS number) that holds the cell outlines taken from a LEF file.
OUTLINE_LAYER = "cell outline"


def _klayout():
    try:
        import klayout.db as db
        import klayout.lay as lay
    except ImportError:
        raise RuntimeError("the klayout Python module is not installed: "
                           "`pip install fhe-hw[asic]`") from None
    return db, lay


def _add_cell_outlines(layout, cell_lef, db):
    """Give every empty cell of ``layout`` that ``cell_lef`` defines its LEF outline (the
    macro's SIZE box) on :data:`OUTLINE_LAYER`; return how many cells got one."""
    abstracts = db.Layout()
    options = db.LoadLayoutOptions()
    options.lefdef_config.produce_cell_outlines = True
    abstracts.read(str(cell_lef), options)
    layer = layout.layer(db.LayerInfo(OUTLINE_LAYER))
    filled = 0
    for cell in list(layout.each_cell()):
        if cell.is_empty() and abstracts.has_cell(cell.name):
            cell.shapes(layer).insert(abstracts.cell(cell.name).bbox())
            filled += 1
    return filled


def _outlines_below(view):
    """Draw :data:`OUTLINE_LAYER` first (under everything else) as grey filled boxes."""
    entry = view.begin_layers()
    while not entry.at_end():
        props = entry.current()
        if props.source_name == OUTLINE_LAYER:
            props.fill_color, props.frame_color, props.dither_pattern = 0x505050, 0x909090, 0
            view.delete_layer(entry)
            view.insert_layer(view.begin_layers(), props)
            return
        entry.next()


def _klayout_error(error):
    # KLayout's errors are RuntimeErrors whose first line names the file and the call.
    return RuntimeError(f"KLayout: {str(error).splitlines()[0]}")


def render_gds(gds, png, *, lyp=None, cell_lef=None, width=1200, background="#000000"):
    """Draw ``gds`` into the PNG file ``png``; return its path.

    Parameters: ``lyp`` (KLayout layer properties for the colours; layers it does not name get
    default ones), ``cell_lef`` (a LEF file whose macro outlines stand in for the cells the GDS
    leaves empty), ``width`` (pixels; the height follows the layout's aspect ratio),
    ``background`` (a colour as ``#rrggbb``).

    Raises ``ValueError`` for a width below 16 and ``RuntimeError`` when KLayout is missing,
    cannot read a file or the layout has no shapes.
    """
    if not isinstance(width, int) or isinstance(width, bool) or width < 16:
        raise ValueError(f"width must be an integer of at least 16 pixels, not {width!r}")
    db, lay = _klayout()
    png = Path(png)
    layout = db.Layout()
    try:
        layout.read(str(gds))
        if cell_lef is not None:
            _add_cell_outlines(layout, cell_lef, db)
    except RuntimeError as e:
        raise _klayout_error(e) from None
    tops = layout.top_cells()
    box = tops[0].dbbox() if len(tops) == 1 else None
    if box is None or box.empty() or box.width() <= 0 or box.height() <= 0:
        raise RuntimeError(f"{gds} has no single top cell with shapes to draw")
    view = lay.LayoutView()
    for key, value in (("grid-visible", "false"), ("text-visible", "false"),
                       ("background-color", background)):
        view.set_config(key, value)
    view.show_layout(layout, True)
    try:
        if lyp is not None:
            view.load_layer_props(str(lyp), True)
        _outlines_below(view)
        view.max_hier()
        view.zoom_fit()
        view.save_image(str(png), width, max(16, round(width * box.height() / box.width())))
    except RuntimeError as e:
        raise _klayout_error(e) from None
    if not png.is_file():
        raise RuntimeError(f"KLayout wrote no {png}")
    return png


def layout_picture(gds, **options):
    """Write ``<name>.png`` beside the GDS file ``<name>.gds`` with :func:`render_gds`
    (``options`` passed on); return ``(path, None)``, or ``(None, reason)`` when it could not
    be drawn (the GDS is left as it is)."""
    try:
        return str(render_gds(gds, Path(gds).with_suffix(".png"), **options)), None
    except (RuntimeError, OSError) as e:
        return None, f"no picture of {gds}: {e}"
