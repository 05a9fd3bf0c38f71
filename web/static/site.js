// termarena's own script: the pages read without it; it only adds live
// updates where a page asks for them (data-live on an element).
"use strict";
