; Windows: SpeedMatrix offers itself in "Open with" for .json files (session files end in
; .speedmatrix.json, and Windows associates by the last extension only) without taking .json
; over from the person's editor: a ProgID plus an OpenWithProgids entry, per user (HKCU via SHCTX).
!macro customInstall
  WriteRegStr SHCTX "Software\Classes\SpeedMatrix.Session" "" "SpeedMatrix session"
  WriteRegStr SHCTX "Software\Classes\SpeedMatrix.Session\DefaultIcon" "" "$INSTDIR\${APP_EXECUTABLE_FILENAME},0"
  WriteRegStr SHCTX "Software\Classes\SpeedMatrix.Session\shell\open\command" "" '"$INSTDIR\${APP_EXECUTABLE_FILENAME}" "%1"'
  WriteRegStr SHCTX "Software\Classes\.json\OpenWithProgids" "SpeedMatrix.Session" ""
!macroend

!macro customUnInstall
  DeleteRegValue SHCTX "Software\Classes\.json\OpenWithProgids" "SpeedMatrix.Session"
  DeleteRegKey SHCTX "Software\Classes\SpeedMatrix.Session"
!macroend
