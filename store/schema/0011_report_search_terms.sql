-- The words a report is searched by, as whole tokens (see store/search_terms.go):
-- its title, verdict and headline, with the suspects, functions and classes its
-- page shows. Every report's headline is worked out again (BackfillHeadlines,
-- when a server starts), which fills them.
ALTER TABLE reports ADD COLUMN search_terms TEXT NOT NULL DEFAULT '';
UPDATE reports SET headline_state = 0;
