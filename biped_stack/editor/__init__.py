"""The style editor (issue #17): ``document`` (a style file being edited), ``preview`` (the
planner's reference at a velocity), ``server`` (the local web server and its JSON API; the page is
``web/editor``), ``shadow`` (the MuJoCo check before an edit reaches a robot), ``ros_live`` (the
running planner over DDS), ``keyframes`` (gait import), ``app`` (``biped-stack editor``)."""
