set(EMA_LAYERS core report)
set(visible_core core)
set(visible_report report core)
